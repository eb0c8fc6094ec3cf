// The Teamspace's loudness target for its dubs (issue 28): the source's own loudness (default: a quiet film stays
// quiet, a loud vlog stays loud, the loudness range kept), web (-14 or -16 LUFS) or broadcast (-23 LUFS, EBU R128).
// Owners change it (saved at once); others see it. PATCH /api/space/{id} { loudness_target }.
import { Select, Text } from '@shopify/polaris';
import { useState } from 'react';
import type { LoudnessTargetKey, Space } from '../../../../contract/schemas/space';
import { errorMessage } from '../../../lib/http';
import { useSpaceActions } from '../api';

const OPTIONS: Array<{ label: string; value: LoudnessTargetKey }> = [
  { label: 'Same as the original video (recommended)', value: 'source' },
  { label: 'Web: -14 LUFS (YouTube, Spotify)', value: 'web_-14' },
  { label: 'Web: -16 LUFS (podcasts, Apple)', value: 'web_-16' },
  { label: 'Broadcast: -23 LUFS (EBU R128)', value: 'broadcast_-23' },
];

export function LoudnessSetting({ space, owner }: { space: Space; owner: boolean }) {
  const actions = useSpaceActions();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <Select
      label="Loudness of the dubs"
      options={OPTIONS}
      value={space.loudness_target ?? 'source'}
      disabled={!owner || busy}
      helpText={
        error ? (
          <Text as="span" tone="critical">{error}</Text>
        ) : (
          'The dub keeps the original’s loudness range; peaks stay under -1 dBTP. Applies to the next generated dubs.'
        )
      }
      onChange={(v) => {
        setError(null);
        setBusy(true);
        actions
          .update(space.id, { loudness_target: v as LoudnessTargetKey })
          .catch((e: unknown) => setError(errorMessage(e)))
          .finally(() => setBusy(false));
      }}
    />
  );
}
