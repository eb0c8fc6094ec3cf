// Shared presentational pieces over Polaris.
export { ToastHost, useToast, showToast, dismissToast, toastsAtom, type ToastItem, type ToastOptions } from './toasts';
export { SnackbarHost, useSnackbar, showSnackbar, snackbarsAtom, type SnackbarItem, type SnackbarOptions, type SnackbarVariant } from './snackbars';
export { LoadingOverlay, useLoadingOverlay, loadingOverlayAtom } from './loading-overlay';
export { UnknownErrorModal, UNKNOWN_ERROR_TITLE } from './unknown-error-modal';
export { DiscardChangesModal, type DiscardChangesModalProps } from './discard-modal';
export { PageFrame, EmptyStateCard, EmptyPage, type PageFrameProps, type EmptyStateCardProps } from './page';
export { GenericErrorPage, ErrorBoundary } from './error-page';
export { SpinnerPage } from './spinner-page';
export { EMPTY_ILLUSTRATION, MAINTENANCE_ILLUSTRATION } from './illustrations';
