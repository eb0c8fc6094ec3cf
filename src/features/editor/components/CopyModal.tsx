// Copy the project to another target language (POST {id}/copy).
import { Modal, Select, Text } from '@shopify/polaris';
import { useEffect, useState } from 'react';
import type { Project } from '../../../../contract/schemas/project';
import { groupLanguageOptions } from '../../../lib/format';

export function CopyModal({
  open,
  options,
  currentLang,
  onClose,
  onCopy,
}: {
  open: boolean;
  options: Array<{ label: string; value: string; note?: string }>;
  currentLang: string;
  onClose: () => void;
  onCopy: (dstLang: string) => Promise<Project>;
}) {
  const choices = options.filter((o) => o.value !== currentLang);
  const [lang, setLang] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (open) {
      setLang(choices[0]?.value ?? '');
      setError(null);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
  return (
    <Modal
      open={open}
      onClose={() => !busy && onClose()}
      title="Copy to another language"
      primaryAction={{
        content: 'Create copy',
        loading: busy,
        disabled: busy || !lang,
        onAction: async () => {
          setBusy(true);
          setError(null);
          try {
            await onCopy(lang);
            onClose();
          } catch (e) {
            setError((e as Error).message);
          } finally {
            setBusy(false);
          }
        },
      }}
      secondaryActions={[{ content: 'Cancel', onAction: onClose, disabled: busy }]}
    >
      <Modal.Section>
        <Select
          label="Target language"
          options={groupLanguageOptions(choices)}
          value={lang}
          onChange={setLang}
          disabled={busy}
          helpText={choices.find((o) => o.value === lang)?.note}
        />
        <div style={{ marginTop: 12 }}>
          <Text as="p" tone={error ? 'critical' : 'subdued'}>
            {error ?? 'The copy keeps the transcript, the speakers and the timing; the text is translated again.'}
          </Text>
        </div>
      </Modal.Section>
    </Modal>
  );
}
