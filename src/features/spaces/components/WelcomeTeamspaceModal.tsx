import { useState } from 'react';
import { Modal, Text } from '@shopify/polaris';
import { useCurrentUser } from '../../../lib/api/use-current-user';
import { useSpaces } from '../../../lib/api/use-spaces';
import { useSpaceActions } from '../api';
import { L } from '../texts';

/**
 * Welcome-to-Teamspace: shown once for each id in user.pending_welcome_spaces (a space the user joined by
 * invitation), then PATCH /api/users/current {welcome_seen_space_id}.
 */
export function WelcomeTeamspaceModal(props: { onOpenSpace?(spaceId: string): void }) {
  const { data: me } = useCurrentUser();
  const { data: spaces } = useSpaces();
  const actions = useSpaceActions();
  // Ids handled in this page view, so a failing PATCH never shows the same welcome again and again.
  const [done, setDone] = useState<string[]>([]);
  const pending = (me?.pending_welcome_spaces ?? []).filter((id) => !done.includes(id));
  const space = spaces ? spaces.find((s) => pending.includes(s.id)) : undefined;

  if (!me || !spaces || !space) return null;
  const owner = space.members.find((m) => m.role === 'owner')?.email ?? '';

  const seen = (open: boolean) => {
    setDone((d) => [...d, space.id]);
    actions.welcomeSeen(space.id).catch((e: unknown) => console.error('welcome_seen_space_id not saved', e));
    if (open) props.onOpenSpace?.(space.id);
  };

  return (
    <Modal
      open
      instant
      title={L.welcomeTitle(space.name)}
      onClose={() => seen(false)}
      primaryAction={{ content: L.welcomeOpen, onAction: () => seen(true) }}
      secondaryActions={[{ content: L.close, onAction: () => seen(false) }]}
    >
      <Modal.Section>
        <Text as="p">{L.welcomeText(owner)}</Text>
      </Modal.Section>
    </Modal>
  );
}
