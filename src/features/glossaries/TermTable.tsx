// The Dictionary's term rows (edited in place: a text cell is saved when it loses focus or on Enter, a check
// box at once) and the form that adds a term.
import { Button, Checkbox, InlineStack, TextField } from '@shopify/polaris';
import { useState, type KeyboardEvent } from 'react';
import { GLOSSARY_MAX_TERM, type GlossaryEntry } from '../../../contract/schemas/glossary';

type TextKey = 'source' | 'target' | 'pronunciation';

export function TermRow({ entry, onChange, onDelete }: { entry: GlossaryEntry; onChange: (e: GlossaryEntry) => Promise<boolean>; onDelete: () => Promise<boolean> }) {
  const [draft, setDraft] = useState({ source: entry.source, target: entry.target, pronunciation: entry.pronunciation ?? '' });

  const commit = (k: TextKey) => {
    const value = draft[k].trim();
    const before = k === 'pronunciation' ? (entry.pronunciation ?? '') : entry[k];
    if (value === before) return;
    void onChange({ ...entry, [k]: k === 'pronunciation' ? value || null : value });
  };
  const onKey = (k: TextKey) => (ev: KeyboardEvent) => {
    if (ev.key === 'Enter') commit(k);
    if (ev.key === 'Escape') setDraft((d) => ({ ...d, [k]: k === 'pronunciation' ? (entry.pronunciation ?? '') : entry[k] }));
  };
  const cell = (k: TextKey, label: string, disabled = false) => (
    <td>
      <div onKeyDown={onKey(k)}>
        <TextField
          label={`${label} of ${entry.source}`}
          labelHidden
          value={draft[k]}
          onChange={(v) => setDraft((d) => ({ ...d, [k]: v }))}
          onBlur={() => commit(k)}
          autoComplete="off"
          maxLength={GLOSSARY_MAX_TERM}
          disabled={disabled}
          placeholder={k === 'target' && entry.do_not_translate ? 'Kept as it is' : undefined}
        />
      </div>
    </td>
  );

  return (
    <tr>
      {cell('source', 'Term')}
      {cell('target', 'Translation', entry.do_not_translate)}
      <td>
        <Checkbox
          label={`Do not translate ${entry.source}`}
          labelHidden
          checked={entry.do_not_translate}
          onChange={(v) => void onChange({ ...entry, do_not_translate: v })}
        />
      </td>
      <td>
        <Checkbox
          label={`Case sensitive ${entry.source}`}
          labelHidden
          checked={entry.case_sensitive}
          onChange={(v) => void onChange({ ...entry, case_sensitive: v })}
        />
      </td>
      {cell('pronunciation', 'Pronunciation')}
      <td>
        <Button variant="tertiary" tone="critical" accessibilityLabel={`Delete ${entry.source}`} onClick={() => void onDelete()}>
          Delete
        </Button>
      </td>
    </tr>
  );
}

const EMPTY = { source: '', target: '', pronunciation: '', do_not_translate: false, case_sensitive: false };

export function NewTermForm({ onAdd }: { onAdd: (e: GlossaryEntry) => Promise<boolean> }) {
  const [f, setF] = useState(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const add = async () => {
    if (!f.source.trim()) return setError('The term is empty');
    if (!f.do_not_translate && !f.target.trim()) return setError(`The translation of "${f.source.trim()}" is empty`);
    setError(null);
    const ok = await onAdd({
      source: f.source.trim(),
      target: f.target.trim(),
      do_not_translate: f.do_not_translate,
      case_sensitive: f.case_sensitive,
      pronunciation: f.pronunciation.trim() || null,
    });
    if (ok) setF(EMPTY);
  };
  return (
    <form
      aria-label="Add a term"
      onSubmit={(e) => {
        e.preventDefault();
        void add();
      }}
    >
      <InlineStack gap="300" blockAlign="end" wrap>
        <TextField label="New term" value={f.source} onChange={(v) => setF({ ...f, source: v })} autoComplete="off" maxLength={GLOSSARY_MAX_TERM} error={error ?? undefined} />
        <TextField label="Translation" value={f.target} onChange={(v) => setF({ ...f, target: v })} autoComplete="off" maxLength={GLOSSARY_MAX_TERM} disabled={f.do_not_translate} />
        <TextField label="Pronunciation (optional)" value={f.pronunciation} onChange={(v) => setF({ ...f, pronunciation: v })} autoComplete="off" maxLength={GLOSSARY_MAX_TERM} />
        <Checkbox label="Do not translate" checked={f.do_not_translate} onChange={(v) => setF({ ...f, do_not_translate: v })} />
        <Checkbox label="Case sensitive" checked={f.case_sensitive} onChange={(v) => setF({ ...f, case_sensitive: v })} />
        <Button submit variant="primary">Add term</Button>
      </InlineStack>
    </form>
  );
}
