// Loading overlay: a full-page veil with a spinner while any caller holds it.
import { Spinner } from '@shopify/polaris';
import { atom, useAtomValue, useSetAtom } from 'jotai';
import { useCallback } from 'react';

/** How many callers currently hold the overlay. */
export const loadingOverlayAtom = atom(0);

export function useLoadingOverlay() {
  const set = useSetAtom(loadingOverlayAtom);
  /** Shows the overlay; call the returned function to release it (idempotent). */
  const show = useCallback(() => {
    set((n) => n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      set((n) => Math.max(0, n - 1));
    };
  }, [set]);
  /** Shows the overlay while a promise runs. */
  const during = useCallback(
    async <T,>(work: Promise<T>): Promise<T> => {
      const release = show();
      try {
        return await work;
      } finally {
        release();
      }
    },
    [show],
  );
  return { show, during };
}

export function LoadingOverlay({ label = 'Loading' }: { label?: string }) {
  const count = useAtomValue(loadingOverlayAtom);
  if (count <= 0) return null;
  return (
    <div className="ds-loading-overlay" role="progressbar" aria-busy="true" aria-label={label}>
      <Spinner accessibilityLabel={label} size="large" />
    </div>
  );
}
