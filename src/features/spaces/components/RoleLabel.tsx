import { Text } from '@shopify/polaris';
import { L } from '../texts';

/** 'Owner' with the member count, or 'Editor'; '(you)' marks the current user. */
export function RoleLabel(props: { role: 'owner' | 'editor'; memberCount?: number; isYou?: boolean }) {
  const parts: string[] = [props.role === 'owner' ? L.owner : L.editor];
  if (props.role === 'owner' && props.memberCount !== undefined) parts.push(`· ${L.members(props.memberCount)}`);
  if (props.isYou) parts.push(L.you);
  return (
    <Text as="span" variant="bodySm" tone="subdued">
      {parts.join(' ')}
    </Text>
  );
}
