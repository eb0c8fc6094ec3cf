// The Teamspace's subtitle limits (issue 29): how long a subtitle line may be, how many lines, how fast it may be read
// and how long a cue stays on screen. SRT, VTT and burned subtitles of the space's projects follow them. Owners
// change them (Save, or back to the defaults); others see them. PATCH /api/space/{id} { subtitle_limits }.
import { BlockStack, Button, Collapsible, InlineGrid, InlineStack, Text, TextField } from '@shopify/polaris';
import { useEffect, useId, useState } from 'react';
import { SUBTITLE_LIMITS_DEFAULT, type Space, type SubtitleLimits } from '../../../../contract/schemas/space';
import { errorMessage } from '../../../lib/http';
import { formatNumber } from '../../../lib/format';
import { useSpaceActions } from '../api';

type Key = keyof SubtitleLimits;
interface Field {
  key: Key;
  label: string;
  min: number;
  max: number;
  step: number;
  suffix: string;
}
// The same bounds as the API's (contract/schemas/space.ts SubtitleLimitsPatch).
const FIELDS: Field[] = [
  { key: 'max_line_chars', label: 'Characters per line, at most', min: 16, max: 80, step: 1, suffix: 'chars' },
  { key: 'max_lines', label: 'Lines per subtitle, at most', min: 1, max: 3, step: 1, suffix: 'lines' },
  { key: 'target_cps', label: 'Reading speed to aim for', min: 5, max: 40, step: 0.5, suffix: 'chars/s' },
  { key: 'max_cps', label: 'Reading speed, hard limit', min: 5, max: 40, step: 0.5, suffix: 'chars/s' },
  { key: 'min_duration_sec', label: 'Shortest time on screen', min: 0.2, max: 5, step: 0.01, suffix: 's' },
  { key: 'max_duration_sec', label: 'Longest time on screen', min: 1, max: 20, step: 0.5, suffix: 's' },
];

const asText = (l: SubtitleLimits) => Object.fromEntries(FIELDS.map((f) => [f.key, String(l[f.key])])) as Record<Key, string>;

/** Checks the typed values: the limits to send, or an error per field. */
export function checkSubtitleLimits(values: Record<Key, string>): { limits: SubtitleLimits | null; errors: Partial<Record<Key, string>> } {
  const errors: Partial<Record<Key, string>> = {};
  const out = {} as SubtitleLimits;
  for (const f of FIELDS) {
    const n = Number(values[f.key].replace(',', '.'));
    const integer = f.step === 1;
    if (values[f.key].trim() === '' || !Number.isFinite(n)) errors[f.key] = 'Enter a number';
    else if (integer && !Number.isInteger(n)) errors[f.key] = 'Enter a whole number';
    else if (n < f.min || n > f.max) errors[f.key] = `Between ${formatNumber(f.min, 2)} and ${formatNumber(f.max, 2)}`;
    else out[f.key] = n;
  }
  if (!errors.max_cps && !errors.target_cps && out.max_cps < out.target_cps) errors.max_cps = 'At least the reading speed to aim for';
  if (!errors.max_duration_sec && !errors.min_duration_sec && out.max_duration_sec < out.min_duration_sec) errors.max_duration_sec = 'At least the shortest time';
  return { limits: Object.keys(errors).length ? null : out, errors };
}

export function SubtitleLimitsSetting({ space, owner }: { space: Space; owner: boolean }) {
  const actions = useSpaceActions();
  const id = useId();
  const current = space.subtitle_limits ?? SUBTITLE_LIMITS_DEFAULT;
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState(() => asText(current));
  const [errors, setErrors] = useState<Partial<Record<Key, string>>>({});
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ tone: 'critical' | 'success'; text: string } | null>(null);
  const currentKey = JSON.stringify(current);
  useEffect(() => setValues(asText(JSON.parse(currentKey) as SubtitleLimits)), [currentKey]);

  const isDefault = FIELDS.every((f) => current[f.key] === SUBTITLE_LIMITS_DEFAULT[f.key]);
  const summary = `${current.max_line_chars} characters × ${current.max_lines} ${current.max_lines === 1 ? 'line' : 'lines'}, ${formatNumber(current.target_cps, 1)} characters per second (at most ${formatNumber(current.max_cps, 1)}), ${formatNumber(current.min_duration_sec, 2)}–${formatNumber(current.max_duration_sec, 2)} s on screen`;
  const changed = FIELDS.some((f) => values[f.key] !== String(current[f.key]));

  async function send(patch: Partial<SubtitleLimits> | null, done: string) {
    setBusy(true);
    setMessage(null);
    try {
      await actions.update(space.id, { subtitle_limits: patch });
      setMessage({ tone: 'success', text: done });
    } catch (e) {
      setMessage({ tone: 'critical', text: errorMessage(e) });
    } finally {
      setBusy(false);
    }
  }

  function save() {
    const { limits, errors: found } = checkSubtitleLimits(values);
    setErrors(found);
    if (!limits) return;
    void send(limits, 'Saved. The next subtitles of this Teamspace follow these limits.');
  }

  return (
    <BlockStack gap="200">
      <InlineStack align="space-between" blockAlign="center" gap="200" wrap={false}>
        <BlockStack gap="050">
          <Text as="h3" variant="headingSm">Subtitle limits</Text>
          <Text as="p" variant="bodySm" tone="subdued">
            {isDefault ? `${summary} (common subtitle guidelines)` : summary}
          </Text>
        </BlockStack>
        <Button variant="plain" onClick={() => setOpen((o) => !o)} ariaExpanded={open} ariaControls={id}>
          {open ? 'Hide' : owner ? 'Change' : 'Details'}
        </Button>
      </InlineStack>
      <Collapsible id={id} open={open}>
        <BlockStack gap="300">
          <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
            {FIELDS.map((f) => (
              <TextField
                key={f.key}
                label={f.label}
                type="number"
                autoComplete="off"
                min={f.min}
                max={f.max}
                step={f.step}
                suffix={f.suffix}
                value={values[f.key]}
                onChange={(v) => {
                  setValues((o) => ({ ...o, [f.key]: v }));
                  setErrors((o) => ({ ...o, [f.key]: undefined }));
                  setMessage(null);
                }}
                error={errors[f.key]}
                disabled={!owner || busy}
              />
            ))}
          </InlineGrid>
          <div role="status">
            {message ? (
              <Text as="p" variant="bodySm" tone={message.tone}>
                {message.text}
              </Text>
            ) : null}
          </div>
          {owner ? (
            <InlineStack gap="200" align="end">
              <Button onClick={() => void send(null, 'Back to the common subtitle guidelines.')} disabled={busy || isDefault}>
                Use the defaults
              </Button>
              <Button variant="primary" onClick={save} disabled={busy || !changed} loading={busy}>
                Save limits
              </Button>
            </InlineStack>
          ) : (
            <Text as="p" variant="bodySm" tone="subdued">
              Only the Teamspace's owners change these.
            </Text>
          )}
        </BlockStack>
      </Collapsible>
    </BlockStack>
  );
}
