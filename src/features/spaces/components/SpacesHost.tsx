import { useAtom } from 'jotai';
import { useToast } from '../../../ui/toasts';
import { createTeamspaceOpenAtom, teamspaceDialogAtom, useSpaceNavigation } from '../state';
import { L } from '../texts';
import { CreateTeamspaceModal } from './CreateTeamspaceModal';
import { TeamspaceDialog } from './TeamspaceDialog';
import { WelcomeTeamspaceModal } from './WelcomeTeamspaceModal';

/**
 * The Teamspaces modals, mounted once by the app shell: the Create Teamspace modal and the Teamspace dialog
 * (opened through the atoms of ../state from the switcher or the Settings & members item), and the
 * Welcome-to-Teamspace modal for spaces the user joined by invitation.
 */
export function SpacesHost() {
  const [createOpen, setCreateOpen] = useAtom(createTeamspaceOpenAtom);
  const [dialog, setDialog] = useAtom(teamspaceDialogAtom);
  const nav = useSpaceNavigation();
  const toast = useToast();
  return (
    <>
      <CreateTeamspaceModal
        open={createOpen}
        onClose={() => setCreateOpen(false)}
        onCreated={(space) => {
          toast.show(L.created(space.name));
          nav.toSpace(space.id);
        }}
      />
      {dialog ? (
        <TeamspaceDialog
          key={dialog.spaceId}
          open
          spaceId={dialog.spaceId}
          initialTab={dialog.tab}
          onClose={() => setDialog(null)}
          onDeleted={() => nav.toHome()}
          onLeft={(defaultSpaceId) => nav.toSpace(defaultSpaceId)}
          onManageSubscription={() => {
            setDialog(null);
            nav.toPricing();
          }}
        />
      ) : null}
      <WelcomeTeamspaceModal onOpenSpace={(id) => nav.toSpace(id)} />
    </>
  );
}
