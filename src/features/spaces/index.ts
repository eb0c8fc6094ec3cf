// Teamspaces: what the app shell uses of the feature (the switcher, the modals host, the dialog opener).
export { TeamspaceSwitcher } from './components/TeamspaceSwitcher';
export { SpacesHost as TeamspaceModals } from './components/SpacesHost';
export { useOpenTeamspaceDialog } from './state';
export { JoinPage } from './components/JoinPage';
