// The cast of a Teamspace in the Voice Clone Library: each person kept from a speaker, renamed, merged into another
// (the same person kept twice) or removed. Kept from the editor's "Keep in cast".
import { Banner, BlockStack, Button, Card, InlineStack, Select, Text, TextField } from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { TEXT } from '../../../contract/errors';
import type { CastMember } from '../../../contract/schemas/cast';
import { errorMessage } from '../../lib/http';
import { mergeMember, removeMember, renameMember, useCast } from './cast-api';

export function CastSection({ spaceId }: { spaceId: string }) {
  const cast = useCast(spaceId, true);
  const members = cast.data?.members ?? [];
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          {TEXT.castTitle}
        </Text>
        <Text as="p" tone="subdued">
          {TEXT.castHelp}
        </Text>
        {cast.error && <Banner tone="critical">{errorMessage(cast.error)}</Banner>}
        {cast.data && members.length === 0 && <Text as="p">{TEXT.castEmpty}</Text>}
        {members.map((m) => (
          <MemberRow key={m.id} member={m} others={members.filter((o) => o.id !== m.id)} spaceId={spaceId} />
        ))}
      </BlockStack>
    </Card>
  );
}

function MemberRow({ member, others, spaceId }: { member: CastMember; others: CastMember[]; spaceId: string }) {
  const [name, setName] = useState(member.name);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => setName(member.name), [member.name]);
  const act = (fn: () => Promise<unknown>) => {
    setBusy(true);
    fn()
      .then(() => setError(null), (e: Error) => setError(e.message))
      .finally(() => setBusy(false));
  };
  const langs = Object.keys(member.voices).sort();
  return (
    <BlockStack gap="150">
      <InlineStack gap="200" blockAlign="end" wrap>
        <div style={{ flex: '1 1 12rem', minWidth: 0 }}>
          <TextField
            label={`Name of ${member.name}`}
            labelHidden
            autoComplete="off"
            value={name}
            disabled={busy}
            onChange={setName}
            onBlur={() => {
              const n = name.trim();
              if (n === member.name) return;
              if (!n) return setError(TEXT.fieldRequired);
              act(() => renameMember(spaceId, member.id, n));
            }}
            error={error ?? undefined}
          />
        </div>
        {others.length > 0 && (
          <div style={{ flex: '1 1 10rem', minWidth: 0 }}>
            <Select
              label={`${TEXT.castMergeInto}: merge ${member.name} into another member`}
              labelHidden
              disabled={busy}
              options={[{ label: `${TEXT.castMergeInto}…`, value: '' }, ...others.map((o) => ({ label: o.name, value: o.id }))]}
              value=""
              onChange={(into) => into && act(() => mergeMember(spaceId, into, member.id))}
            />
          </div>
        )}
        <Button tone="critical" variant="plain" disabled={busy} accessibilityLabel={`${TEXT.castRemove} ${member.name} from the cast`} onClick={() => act(() => removeMember(spaceId, member.id))}>
          {TEXT.castRemove}
        </Button>
      </InlineStack>
      <Text as="p" tone="subdued" variant="bodySm">
        {member.gender ? `${member.gender}, ` : ''}
        {Math.round(member.profile.median_hz)} Hz
        {langs.length ? ` · voices: ${langs.map((l) => l.toUpperCase()).join(', ')}` : ''}
      </Text>
    </BlockStack>
  );
}
