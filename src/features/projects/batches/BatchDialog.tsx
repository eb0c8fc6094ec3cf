// The batch dialog (issue 31), opened from the Translation page: drop many videos and/or paste links, pick the
// languages once, optionally generate the dubs when ready. Each file is uploaded, then one batch is created.
import { BlockStack, Checkbox, DropZone, InlineStack, InlineError, List, Modal, Select, Tag, Text, TextField } from '@shopify/polaris';
import { useMemo, useState } from 'react';
import { TEXT } from '../../../../contract/errors';
import { useSettings } from '../../../lib/api/use-settings';
import { errorMessage } from '../../../lib/http';
import { uploadMultipart } from '../api';
import { languageOptions } from '../lib/languages';
import { createBatch } from './api';

export function BatchDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (batchId: string) => void }) {
  const { settings } = useSettings();
  const srcOptions = useMemo(() => languageOptions(settings?.languages.transcription ?? []), [settings]);
  const dstOptions = useMemo(() => languageOptions(settings?.languages.translation ?? [], { translation: true }), [settings]);
  const [files, setFiles] = useState<File[]>([]);
  const [links, setLinks] = useState('');
  const [srcLang, setSrcLang] = useState('');
  const [langs, setLangs] = useState<string[]>([]);
  const [generate, setGenerate] = useState(true);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const linkList = links.split(/\s+/).map((l) => l.trim()).filter(Boolean);
  const label = (v: string) => dstOptions.find((o) => o.value === v)?.label ?? v;

  async function start() {
    setError(null);
    if (files.length + linkList.length === 0) return setError(TEXT.batchNothing);
    if (!srcLang) return setError('Choose the source language');
    if (langs.length === 0) return setError('Choose at least one target language');
    try {
      const items: Array<{ media_id?: string; link?: string; name?: string }> = [];
      for (const [i, f] of files.entries()) {
        setBusy(`Uploading ${i + 1} of ${files.length}: ${f.name}`);
        const m = await uploadMultipart(f, f.type.startsWith('audio/') ? 'audio' : 'video');
        items.push({ media_id: m.id, name: f.name.replace(/\.[^.]+$/, '') });
      }
      for (const l of linkList) items.push({ link: l });
      setBusy('Starting the batch…');
      const b = await createBatch({ src_lang: srcLang, dst_langs: langs, items, generate });
      setFiles([]);
      setLinks('');
      onCreated(b.id);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(null);
    }
  }

  return (
    <Modal
      open={open}
      onClose={onClose}
      title={TEXT.batchTitle}
      primaryAction={{ content: TEXT.batchStart, onAction: () => void start(), loading: busy !== null }}
      secondaryActions={[{ content: 'Close', onAction: onClose }]}
    >
      <Modal.Section>
        <BlockStack gap="400">
          <DropZone label="Videos" allowMultiple accept="video/*,audio/*" type="file" onDrop={(_all, accepted) => setFiles((f) => [...f, ...accepted])}>
            <DropZone.FileUpload actionTitle="Add videos" actionHint="or drop many files here" />
          </DropZone>
          {files.length > 0 && (
            <List type="number">
              {files.map((f, i) => (
                <List.Item key={`${f.name}-${i}`}>{f.name}</List.Item>
              ))}
            </List>
          )}
          <TextField label="Video links" value={links} onChange={setLinks} multiline={3} autoComplete="off" helpText={TEXT.batchLinksHelp} />
          <Select label="Source language" options={[{ label: 'Choose…', value: '' }, ...srcOptions]} value={srcLang} onChange={setSrcLang} />
          <BlockStack gap="200">
            <Select
              label="Target languages"
              options={[{ label: 'Add a language…', value: '' }, ...dstOptions.filter((o) => o.value !== srcLang && !langs.includes(o.value))]}
              value=""
              onChange={(v) => v && setLangs((l) => (l.includes(v) || l.length >= 10 ? l : [...l, v]))}
            />
            {langs.length > 0 && (
              <InlineStack gap="200" wrap>
                {langs.map((l) => (
                  <Tag key={l} onRemove={() => setLangs((x) => x.filter((y) => y !== l))} accessibilityLabel={`Remove ${label(l)}`}>
                    {label(l)}
                  </Tag>
                ))}
              </InlineStack>
            )}
          </BlockStack>
          <Checkbox label={TEXT.batchGenerate} checked={generate} onChange={setGenerate} />
          <Text as="p" tone="subdued" variant="bodySm">
            {files.length + linkList.length} videos × {langs.length || 0} languages: each video is analysed once.
          </Text>
          {busy && <div role="status"><Text as="p">{busy}</Text></div>}
          {error && <InlineError message={error} fieldID="batch-error" />}
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
