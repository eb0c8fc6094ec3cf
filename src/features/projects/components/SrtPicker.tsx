// A source or target SRT for the create flow: picked, uploaded at once (POST library/media kind=srt), removable.
import { BlockStack, Button, InlineStack, Text } from '@shopify/polaris';
import { useRef, useState } from 'react';
import { errorMessage } from '../../../lib/http';
import { uploadMultipart } from '../api';

export interface SrtState {
  name: string;
  status: 'uploading' | 'done' | 'failed';
  mediaId: string | null;
  error: string | null;
}

/** One SRT slot: its state, pick (checks the extension, uploads) and clear. */
export function useSrtUpload() {
  const [state, setState] = useState<SrtState | null>(null);
  const pick = (file: File) => {
    if (!/\.srt$/i.test(file.name)) {
      setState({ name: file.name, status: 'failed', mediaId: null, error: 'Choose a .srt subtitle file' });
      return;
    }
    setState({ name: file.name, status: 'uploading', mediaId: null, error: null });
    uploadMultipart(file, 'srt').then(
      (m) => setState({ name: file.name, status: m.status === 'failed' ? 'failed' : 'done', mediaId: m.id, error: m.status === 'failed' ? 'The subtitle file could not be read' : null }),
      (e: unknown) => setState({ name: file.name, status: 'failed', mediaId: null, error: errorMessage(e) }),
    );
  };
  return { state, pick, clear: () => setState(null) };
}

export function SrtPicker({ label, state, onPick, onClear }: { label: string; state: SrtState | null; onPick: (f: File) => void; onClear: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <div style={{ flex: 1 }}>
      <BlockStack gap="100">
        <Text as="span" variant="bodyMd">{label}</Text>
        <input
          ref={input}
          type="file"
          accept=".srt"
          hidden
          aria-label={label}
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) onPick(f);
            e.target.value = '';
          }}
        />
        {state ? (
          <InlineStack gap="200" blockAlign="center">
            <Text as="span" variant="bodySm" tone={state.status === 'failed' ? 'critical' : 'subdued'}>
              {state.status === 'uploading' ? `Uploading ${state.name}…` : state.status === 'failed' ? state.error : state.name}
            </Text>
            <Button variant="plain" onClick={onClear} accessibilityLabel={`Remove ${label}`}>
              Remove
            </Button>
          </InlineStack>
        ) : (
          <div>
            <Button onClick={() => input.current?.click()}>Choose .srt file</Button>
          </div>
        )}
      </BlockStack>
    </div>
  );
}
