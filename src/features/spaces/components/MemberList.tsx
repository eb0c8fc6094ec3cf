import { BlockStack, Button, InlineStack, Text } from '@shopify/polaris';
import { L } from '../texts';
import { RoleLabel } from './RoleLabel';

export interface MemberItem {
  user_id: string;
  email: string;
  role: 'owner' | 'editor';
}
export interface InviteItem {
  id: string;
  email: string;
}

/** Members (owner first) and pending invites, with remove buttons for the owner. */
export function MemberList(props: {
  members: MemberItem[];
  invites?: InviteItem[];
  currentUserId: string | null | undefined;
  /** The current user may remove others (owner). */
  canManage: boolean;
  onRemoveMember?(m: MemberItem): void;
  onRemoveInvite?(i: InviteItem): void;
}) {
  const count = props.members.length;
  return (
    <ul aria-label={L.membersTitle} style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      <BlockStack gap="200">
        {props.members.map((m) => (
          <li key={`m-${m.user_id}`} data-testid="space-member">
            <InlineStack align="space-between" blockAlign="center" wrap={false} gap="200">
              <BlockStack gap="0">
                <Text as="span" variant="bodyMd" truncate>{m.email}</Text>
                <RoleLabel role={m.role} memberCount={m.role === 'owner' ? count : undefined} isYou={m.user_id === props.currentUserId} />
              </BlockStack>
              {props.canManage && m.role !== 'owner' && props.onRemoveMember ? (
                <Button variant="plain" tone="critical" accessibilityLabel={`${L.remove} ${m.email}`} onClick={() => props.onRemoveMember?.(m)}>
                  {L.remove}
                </Button>
              ) : null}
            </InlineStack>
          </li>
        ))}
        {(props.invites ?? []).map((i) => (
          <li key={`i-${i.id}`} data-testid="space-invite">
            <InlineStack align="space-between" blockAlign="center" wrap={false} gap="200">
              <BlockStack gap="0">
                <Text as="span" variant="bodyMd" truncate>{i.email}</Text>
                <Text as="span" variant="bodySm" tone="subdued">{L.editor} · {L.invited}</Text>
              </BlockStack>
              {props.canManage && props.onRemoveInvite ? (
                <Button variant="plain" tone="critical" accessibilityLabel={`${L.removeInvite} ${i.email}`} onClick={() => props.onRemoveInvite?.(i)}>
                  {L.remove}
                </Button>
              ) : null}
            </InlineStack>
          </li>
        ))}
      </BlockStack>
    </ul>
  );
}
