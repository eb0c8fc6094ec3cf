// The source transcript a user already has, as plain text (issue 33): pasted, or read from a .txt file in the
// browser. The server aligns its words to the speech instead of recognising them (and refuses, 422, text it cannot use).
import { BlockStack, Button, InlineStack, Text, TextField } from '@shopify/polaris';
import { useRef, useState } from 'react';

/** Longest transcript the server accepts, in characters. */
const MAX_CHARS = 200_000;

export function SourceTextField({ value, onChange, disabled }: { value: string; onChange: (v: string) => void; disabled?: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async (f: File) => {
    setError(null);
    if (f.size > 4 * MAX_CHARS) return setError(`${f.name} is too large for a transcript`);
    const text = await f.text();
    if (text.includes('\u0000')) return setError(`${f.name} is not a text file`);
    if (/-->/.test(text)) return setError(`${f.name} has subtitle timings: choose it as source subtitles instead`);
    onChange(text.slice(0, MAX_CHARS));
  };
  return (
    <BlockStack gap="100">
      <TextField
        label="Source transcript (optional)"
        value={value}
        onChange={(v) => {
          setError(null);
          onChange(v);
        }}
        multiline={3}
        maxHeight={160}
        maxLength={MAX_CHARS}
        autoComplete="off"
        disabled={disabled}
        error={error ?? undefined}
        helpText={
          disabled
            ? 'The source subtitles give the transcript.'
            : 'The words spoken, as you have them: they are timed to the voice instead of being recognised.'
        }
      />
      <input
        ref={input}
        type="file"
        accept=".txt,text/plain"
        hidden
        aria-label="Source transcript file"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) void load(f);
          e.target.value = '';
        }}
      />
      <InlineStack gap="200">
        <Button disabled={disabled} onClick={() => input.current?.click()}>Load .txt file</Button>
        {value && !disabled && (
          <Button variant="plain" onClick={() => onChange('')}>
            Clear
          </Button>
        )}
        {value && <Text as="span" tone="subdued" variant="bodySm">{value.trim().split(/\s+/).filter(Boolean).length} words</Text>}
      </InlineStack>
    </BlockStack>
  );
}
