// The project's dictionary: choose one of the Teamspace's dictionaries for the project's languages.
import { BlockStack, Card, Select, Text } from '@shopify/polaris';
import { useState } from 'react';
import type { Project } from '../../../../contract/schemas/project';
import { errorMessage } from '../../../lib/http';
import { setProjectDictionary, useProjectDictionaries } from '../api';

export interface DictionaryPanelProps {
  project: Project;
  disabled: boolean;
  onChanged: (p: Project) => void;
}

export function DictionaryPanel({ project, disabled, onChanged }: DictionaryPanelProps) {
  const { data } = useProjectDictionaries(project, true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const options = [
    { label: 'No dictionary', value: '' },
    ...(data ?? []).map((g) => ({ label: `${g.name} (${g.entries_count} terms)`, value: g.id })),
  ];
  // A dictionary chosen earlier and since deleted is not in the list: show it as none.
  const value = data?.some((g) => g.id === project.glossary_id) ? (project.glossary_id ?? '') : '';
  const change = async (id: string) => {
    setBusy(true);
    setError(null);
    try {
      onChanged(await setProjectDictionary(project.id, id || null));
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card>
      <BlockStack gap="200">
        <Select label="Dictionary" options={options} value={value} onChange={(v) => void change(v)} disabled={disabled || busy} error={error ?? undefined} />
        <Text as="p" tone="subdued" variant="bodySm">
          Its terms are checked in every segment (a segment without its term is marked) and its pronunciations are used when the voices are generated. The translation already made is not redone.
        </Text>
      </BlockStack>
    </Card>
  );
}
