// Teamspaces: the public surface of the feature.
export { TeamspaceSwitcher } from './components/TeamspaceSwitcher';
export { SpacesHost, SpacesHost as TeamspaceModals } from './components/SpacesHost';
export { CreateTeamspaceModal, type CreateTeamspaceModalProps } from './components/CreateTeamspaceModal';
export { TeamspaceDialog, type TeamspaceDialogProps } from './components/TeamspaceDialog';
export { WelcomeTeamspaceModal } from './components/WelcomeTeamspaceModal';
export { InviteForm, type InviteFormProps } from './components/InviteForm';
export { MemberList, type MemberItem, type InviteItem } from './components/MemberList';
export { RoleLabel } from './components/RoleLabel';
export { UpgradeBanner } from './components/UpgradeBanner';
export { ColorPicker } from './components/ColorPicker';
export { SpaceAvatar } from './components/SpaceAvatar';
export {
  ConfirmModal,
  DiscardChangesModal,
  RemoveMemberModal,
  DeleteTeamspaceModal,
  LeaveSpaceModal,
} from './components/ConfirmDialogs';
export {
  SPACE_KEYS,
  USER_KEY,
  spacesApi,
  useSpaces,
  useSpace,
  useSpaceCredits,
  useSpaceSettings,
  useSpaceLimits,
  useSpaceActions,
  useNoAccessRefetch,
  invalidateSpaces,
  isNoAccessText,
  type SpaceLimits,
  type SpaceSettings,
} from './api';
export {
  teamspaceDialogAtom,
  createTeamspaceOpenAtom,
  useOpenTeamspaceDialog,
  useOpenCurrentTeamspaceDialog,
  useOpenCreateTeamspace,
  useCurrentSpaceId,
} from './state';
export { canDelete, canLeave, capacityOf, inviteEmailError, isSpaceDisabledFor } from './lib/rules';
