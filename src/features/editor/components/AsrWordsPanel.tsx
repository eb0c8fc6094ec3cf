// The words speech recognition listens for (issue 33): the project's word list (names, products, places), one a
// line, saved with Save. It is used when the video is transcribed; the transcript already made is not redone.
import { Banner, BlockStack, Button, Card, InlineStack, Text, TextField } from '@shopify/polaris';
import { useEffect, useMemo, useState } from 'react';
import { errorMessage } from '../../../lib/http';
import { parseWordList, wordListText } from '../../../lib/word-list';
import { saveAsrWords, useAsrWords } from '../api';

export interface AsrWordsPanelProps {
  projectId: string;
  disabled: boolean;
}

export function AsrWordsPanel({ projectId, disabled }: AsrWordsPanelProps) {
  const { data, error: loadError, mutate } = useAsrWords(projectId);
  const saved = data ? wordListText(data.words) : null;
  const [text, setText] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  // the field shows the stored list until the user edits it
  useEffect(() => {
    setText(null);
  }, [projectId]);
  const value = text ?? saved ?? '';
  const parsed = useMemo(() => parseWordList(value), [value]);
  const changed = text !== null && wordListText(parsed.words) !== (saved ?? '');

  const save = async () => {
    if (parsed.error) return;
    setBusy(true);
    setError(null);
    setDone(false);
    try {
      await mutate(await saveAsrWords(projectId, parsed.words), { revalidate: false });
      setText(null);
      setDone(true);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card>
      <BlockStack gap="200">
        <TextField
          label="Words to listen for (names, products, places — one per line)"
          autoComplete="off"
          multiline={3}
          value={value}
          onChange={(v) => {
            setText(v);
            setDone(false);
          }}
          disabled={disabled || busy || !data}
          error={parsed.error ?? error ?? undefined}
        />
        <Text as="p" tone="subdued" variant="bodySm">
          Speech recognition is told these words (and the dictionary&apos;s terms). A change applies the next time this video is transcribed: the transcript already made is not redone.
        </Text>
        {loadError && (
          <Banner tone="critical">
            <p>{errorMessage(loadError)}</p>
          </Banner>
        )}
        <InlineStack align="end" gap="200" blockAlign="center">
          {done && !changed && (
            <Text as="span" tone="success" variant="bodySm">
              Word list saved
            </Text>
          )}
          <Button onClick={() => void save()} loading={busy} disabled={disabled || !changed || !!parsed.error}>
            Save
          </Button>
        </InlineStack>
      </BlockStack>
    </Card>
  );
}
