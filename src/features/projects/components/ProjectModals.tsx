// Card actions: rename, move to folder, delete.
import { BlockStack, Modal, Select, Text, TextField } from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { TEXT } from '../../../../contract/errors';
import type { Project } from '../../../../contract/schemas/project';
import { errorMessage } from '../../../lib/http';

export const FOLDER_NAME_MAX = 64;

function useBusy() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<unknown>, done: () => void) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      setBusy(false);
      done();
    } catch (e) {
      setBusy(false);
      setError(errorMessage(e));
    }
  };
  return { busy, error, setError, run };
}

export function RenameModal({ project, onClose, onRename }: { project: Project | null; onClose: () => void; onRename: (p: Project, name: string) => Promise<unknown> }) {
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const { busy, error, setError, run } = useBusy();
  useEffect(() => {
    setName(project?.name ?? '');
    setTouched(false);
    setError(null);
  }, [project, setError]);
  const invalid = name.trim() === '' ? TEXT.fieldRequired : name.trim().length > 255 ? 'At most 255 characters' : null;
  const unchanged = name.trim() === project?.name;
  const submit = () => {
    setTouched(true);
    if (!project || invalid || unchanged) return;
    void run(() => onRename(project, name.trim()), onClose);
  };
  return (
    <Modal
      open={!!project}
      onClose={() => !busy && onClose()}
      title="Rename project"
      primaryAction={{ content: 'Save', onAction: submit, loading: busy, disabled: busy || !!invalid || unchanged }}
      secondaryActions={[{ content: 'Cancel', onAction: onClose, disabled: busy }]}
    >
      <Modal.Section>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <TextField
            label="Name"
            autoComplete="off"
            value={name}
            onChange={setName}
            onBlur={() => setTouched(true)}
            disabled={busy}
            error={(touched && invalid) || error || undefined}
            autoFocus
          />
        </form>
      </Modal.Section>
    </Modal>
  );
}

export function MoveModal({
  project,
  folders,
  onClose,
  onMove,
}: {
  project: Project | null;
  folders: readonly string[];
  onClose: () => void;
  onMove: (p: Project, folderId: string | null) => Promise<unknown>;
}) {
  const NEW = '__new__';
  const NONE = '';
  const [choice, setChoice] = useState(NONE);
  const [newName, setNewName] = useState('');
  const { busy, error, setError, run } = useBusy();
  useEffect(() => {
    setChoice(project?.folder_id ?? (folders.length === 0 ? NEW : NONE));
    setNewName('');
    setError(null);
  }, [project, folders.length, setError]);
  const target = choice === NEW ? newName.trim() : choice;
  const invalid = choice === NEW && (target === '' ? TEXT.fieldRequired : target.length > FOLDER_NAME_MAX ? `At most ${FOLDER_NAME_MAX} characters` : null);
  const unchanged = (project?.folder_id ?? '') === target;
  const options = [
    { label: 'No folder', value: NONE },
    ...folders.map((f) => ({ label: f, value: f })),
    { label: 'New folder…', value: NEW },
  ];
  return (
    <Modal
      open={!!project}
      onClose={() => !busy && onClose()}
      title="Move to folder"
      primaryAction={{
        content: 'Move',
        loading: busy,
        disabled: busy || !!invalid || unchanged,
        onAction: () => project && !invalid && void run(() => onMove(project, target || null), onClose),
      }}
      secondaryActions={[{ content: 'Cancel', onAction: onClose, disabled: busy }]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          <Select label="Folder" options={options} value={choice} onChange={setChoice} disabled={busy} />
          {choice === NEW && (
            <TextField label="Folder name" autoComplete="off" value={newName} onChange={setNewName} disabled={busy} error={(newName !== '' && invalid) || undefined} autoFocus />
          )}
          {error && <Text as="p" tone="critical">{error}</Text>}
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}

export function DeleteModal({ project, onClose, onDelete }: { project: Project | null; onClose: () => void; onDelete: (p: Project) => Promise<unknown> }) {
  const { busy, error, run } = useBusy();
  return (
    <Modal
      open={!!project}
      onClose={() => !busy && onClose()}
      title="Delete project?"
      primaryAction={{ content: 'Delete', destructive: true, loading: busy, disabled: busy, onAction: () => project && void run(() => onDelete(project), onClose) }}
      secondaryActions={[{ content: 'Cancel', onAction: onClose, disabled: busy }]}
    >
      <Modal.Section>
        <BlockStack gap="200">
          <Text as="p">
            “{project?.name}” and its transcript, voices and videos will be deleted. This cannot be undone.
          </Text>
          {error && <Text as="p" tone="critical">{error}</Text>}
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
