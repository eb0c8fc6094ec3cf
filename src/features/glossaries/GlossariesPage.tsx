// /spaces/:spaceId/glossaries: the Dictionary of a Teamspace. Dictionaries (a name, a source and a target
// language) hold terms: the translation to force, or "do not translate", case sensitivity and how the voice
// should say the term. Terms are edited in place, searched, added, imported from CSV and exported to CSV.
import { Banner, BlockStack, Button, Card, InlineStack, Modal, Select, Text, TextField } from '@shopify/polaris';
import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useParams } from 'wouter';
import { entryProblems, type Glossary, type GlossaryEntry, type GlossaryImportResult } from '../../../contract/schemas/glossary';
import { useFeatureAvailable, useSettings } from '../../lib/api/use-settings';
import { errorMessage } from '../../lib/http';
import { useAsyncAction } from '../../lib/use-async-action';
import { currentSpaceIdAtom, upgradeModalAtom } from '../../lib/state';
import { EmptyPage, EmptyStateCard, PageFrame } from '../../ui/page';
import { showToast } from '../../ui/toasts';
import {
  createGlossary, deleteGlossary, downloadGlossaryCsv, importGlossaryCsv, updateGlossary, useGlossary, useGlossaryList, useGlossaryRefresh,
} from './api';
import { TermRow, NewTermForm } from './TermTable';
import { languagePickerLabel } from '../../lib/format';

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

export default function GlossariesPage() {
  const params = useParams<{ spaceId: string }>();
  const current = useAtomValue(currentSpaceIdAtom);
  const spaceId = params.spaceId ?? current;
  const available = useFeatureAvailable('glossary');
  const openUpgrade = useSetAtom(upgradeModalAtom);
  const list = useGlossaryList(spaceId, available);
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const glossaries = list.data ?? [];
  const chosen = glossaries.find((g) => g.id === selected) ?? glossaries[0] ?? null;

  if (!available) {
    return (
      <EmptyPage
        title="Dictionary"
        heading="The Dictionary is part of the Business plan"
        action={{ content: 'Upgrade', onAction: () => openUpgrade({ feature: 'glossary' }) }}
      >
        <Text as="p">Keep brand names untranslated and force your own translations of terms in every project of the Teamspace.</Text>
      </EmptyPage>
    );
  }

  return (
    <PageFrame
      title="Dictionary"
      subtitle="Terms that must be translated your way in every project of this Teamspace."
      primaryAction={{ content: 'New dictionary', onAction: () => setCreating(true) }}
      fullWidth
    >
      <BlockStack gap="400">
        {list.error && <Banner tone="critical">{errorMessage(list.error)}</Banner>}
        {list.data && glossaries.length === 0 && (
          <EmptyStateCard heading="No dictionaries yet" action={{ content: 'Create a dictionary', onAction: () => setCreating(true) }}>
            <Text as="p">
              A dictionary pairs a source and a target language with the terms to keep or translate in a fixed way. Projects that use it
              follow it when the script is translated and voiced.
            </Text>
          </EmptyStateCard>
        )}
        {glossaries.length > 0 && (
          <Card>
            <Select
              label="Dictionary"
              options={glossaries.map((g) => ({ label: `${g.name} (${g.source_lang} → ${g.target_lang}, ${g.entries_count} terms)`, value: g.id }))}
              value={chosen?.id ?? ''}
              onChange={setSelected}
            />
          </Card>
        )}
        {chosen && <GlossaryEditor key={chosen.id} id={chosen.id} onDeleted={() => setSelected(null)} />}
      </BlockStack>
      <CreateGlossaryModal open={creating} onClose={() => setCreating(false)} onCreated={(g) => setSelected(g.id)} />
    </PageFrame>
  );
}

function CreateGlossaryModal({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (g: Glossary) => void }) {
  const { settings } = useSettings();
  const refresh = useGlossaryRefresh();
  const srcOptions = useMemo(() => (settings?.languages.transcription ?? []).map((l) => ({ label: languagePickerLabel(l.value, l.label), value: l.value })), [settings]);
  const dstOptions = useMemo(
    () => (settings?.languages.translation ?? []).map((l) => ({ label: languagePickerLabel(l.value, l.label), value: l.value })),
    [settings],
  );
  const [name, setName] = useState('');
  const [src, setSrc] = useState('');
  const [dst, setDst] = useState('');
  const { busy, error, setError, run } = useAsyncAction();
  useEffect(() => {
    if (!open) return;
    setName('');
    setError(null);
    setSrc((s) => s || srcOptions.find((o) => o.value === 'en')?.value || srcOptions[0]?.value || '');
    setDst((d) => d || dstOptions.find((o) => o.value !== 'en')?.value || '');
  }, [open, srcOptions, dstOptions, setError]);

  const submit = async () => {
    if (!name.trim()) return setError('Give the dictionary a name');
    if (!src || !dst) return setError('Choose the languages');
    if (src.split('-')[0] === dst.split('-')[0]) return setError('The source and target languages must differ');
    const made: { glossary?: Glossary } = {};
    await run(async () => {
      made.glossary = await createGlossary({ name: name.trim(), source_lang: src, target_lang: dst });
      await refresh(made.glossary);
    });
    if (made.glossary) {
      onCreated(made.glossary);
      onClose();
    }
  };

  return (
    <Modal
      open={open}
      onClose={onClose}
      title="New dictionary"
      primaryAction={{ content: 'Create', onAction: () => void submit(), loading: busy }}
      secondaryActions={[{ content: 'Cancel', onAction: onClose }]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          <TextField label="Name" value={name} onChange={setName} autoComplete="off" maxLength={120} error={error ?? undefined} />
          <InlineStack gap="300" wrap={false}>
            <Select label="Source language" options={[{ label: 'Choose', value: '' }, ...srcOptions]} value={src} onChange={setSrc} />
            <Select label="Target language" options={[{ label: 'Choose', value: '' }, ...dstOptions]} value={dst} onChange={setDst} />
          </InlineStack>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}

function GlossaryEditor({ id, onDeleted }: { id: string; onDeleted: () => void }) {
  const { data: g, error } = useGlossary(id);
  const refresh = useGlossaryRefresh();
  const [search, setSearch] = useState('');
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [imported, setImported] = useState<GlossaryImportResult | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  // Bumped after a refused save so that the rows show the saved values again.
  const [generation, setGeneration] = useState(0);

  const entries = useMemo(() => g?.entries ?? [], [g]);
  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    const all = entries.map((e, index) => ({ e, index }));
    if (!q) return all;
    return all.filter(({ e }) => [e.source, e.target, e.pronunciation ?? ''].some((s) => s.toLowerCase().includes(q)));
  }, [entries, search]);

  if (error) return <Banner tone="critical">{errorMessage(error)}</Banner>;
  if (!g) return null;

  const save = async (next: GlossaryEntry[]): Promise<boolean> => {
    const problems = entryProblems(next);
    if (problems.length) {
      setSaveError(problems[0]!.msg);
      setGeneration((n) => n + 1);
      return false;
    }
    setSaving(true);
    try {
      await refresh(await updateGlossary(g.id, { entries: next }));
      setSaveError(null);
      return true;
    } catch (e) {
      setSaveError(errorMessage(e));
      setGeneration((n) => n + 1);
      return false;
    } finally {
      setSaving(false);
    }
  };

  const onImport = async (file: File | undefined) => {
    if (!file) return;
    setImported(null);
    try {
      const r = await importGlossaryCsv(g.id, file);
      await refresh(r.glossary);
      setImported(r);
      setSaveError(null);
    } catch (e) {
      setSaveError(errorMessage(e));
    } finally {
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  const rename = async () => {
    const name = (renaming ?? '').trim();
    if (!name || name === g.name) return setRenaming(null);
    try {
      await refresh(await updateGlossary(g.id, { name }));
      setRenaming(null);
    } catch (e) {
      setSaveError(errorMessage(e));
    }
  };

  const remove = async () => {
    try {
      await deleteGlossary(g.id);
      setConfirmDelete(false);
      await refresh(null, g.id);
      onDeleted();
      showToast(`Deleted the dictionary ${g.name}`);
    } catch (e) {
      setSaveError(errorMessage(e));
      setConfirmDelete(false);
    }
  };

  return (
    <Card>
      <BlockStack gap="400">
        <InlineStack align="space-between" blockAlign="center" gap="300">
          {renaming === null ? (
            <Text as="h2" variant="headingMd">
              {g.name} <Text as="span" tone="subdued">({g.source_lang} → {g.target_lang})</Text>
            </Text>
          ) : (
            <InlineStack gap="200" blockAlign="end">
              <TextField label="Dictionary name" value={renaming} onChange={setRenaming} autoComplete="off" maxLength={120} />
              <Button onClick={() => void rename()} variant="primary">Save name</Button>
              <Button onClick={() => setRenaming(null)}>Cancel</Button>
            </InlineStack>
          )}
          <InlineStack gap="200">
            <Button onClick={() => setRenaming(g.name)} disabled={renaming !== null}>Rename</Button>
            <Button onClick={() => fileInput.current?.click()}>Import CSV</Button>
            <Button onClick={() => void downloadGlossaryCsv(g).catch((e) => setSaveError(errorMessage(e)))}>Export CSV</Button>
            <Button tone="critical" onClick={() => setConfirmDelete(true)}>Delete</Button>
          </InlineStack>
        </InlineStack>
        <input
          ref={fileInput}
          type="file"
          accept=".csv,text/csv"
          aria-label="CSV file to import"
          style={{ display: 'none' }}
          onChange={(e) => void onImport(e.currentTarget.files?.[0])}
        />
        {saveError && (
          <Banner tone="critical" onDismiss={() => setSaveError(null)}>
            {saveError}
          </Banner>
        )}
        {imported && (
          <Banner tone={imported.errors.length ? 'warning' : 'success'} onDismiss={() => setImported(null)} title="CSV import">
            <BlockStack gap="100">
              <Text as="p">
                {plural(imported.added, 'term')} added, {imported.updated} updated.
                {imported.errors.length > 0 && ` ${plural(imported.errors.length, 'row')} not imported:`}
              </Text>
              {imported.errors.length > 0 && (
                <ul aria-label="Rows not imported">
                  {imported.errors.slice(0, 50).map((e) => (
                    <li key={e.line}>Line {e.line}: {e.msg}</li>
                  ))}
                </ul>
              )}
            </BlockStack>
          </Banner>
        )}
        <NewTermForm onAdd={(e) => save([e, ...entries])} />
        <TextField label="Search terms" labelHidden placeholder="Search terms" value={search} onChange={setSearch} autoComplete="off" clearButton onClearButtonClick={() => setSearch('')} />
        {entries.length === 0 ? (
          <Text as="p" tone="subdued">No terms yet: add one above or import a CSV file (columns: source, target, do_not_translate, case_sensitive, pronunciation).</Text>
        ) : (
          <table className="ds-terms" aria-label="Terms" aria-busy={saving}>
            <thead>
              <tr>
                <th scope="col">Term</th>
                <th scope="col">Translation</th>
                <th scope="col">Do not translate</th>
                <th scope="col">Case sensitive</th>
                <th scope="col">Pronunciation</th>
                <th scope="col"><span className="ds-visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {shown.map(({ e, index }) => (
                <TermRow
                  key={`${generation}-${g.updated_at}-${index}`}
                  entry={e}
                  onChange={(next) => save(entries.map((x, i) => (i === index ? next : x)))}
                  onDelete={() => save(entries.filter((_, i) => i !== index))}
                />
              ))}
            </tbody>
          </table>
        )}
        {entries.length > 0 && shown.length === 0 && <Text as="p" tone="subdued">No term matches “{search}”.</Text>}
      </BlockStack>
      <Modal
        open={confirmDelete}
        onClose={() => setConfirmDelete(false)}
        title={`Delete ${g.name}?`}
        primaryAction={{ content: 'Delete dictionary', destructive: true, onAction: () => void remove() }}
        secondaryActions={[{ content: 'Cancel', onAction: () => setConfirmDelete(false) }]}
      >
        <Modal.Section>
          <Text as="p">Its {g.entries_count} terms are deleted. Projects that use it keep their translations and no longer use a dictionary.</Text>
        </Modal.Section>
      </Modal>
    </Card>
  );
}
