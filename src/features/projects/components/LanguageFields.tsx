// The languages of a new dub: source and target, more target languages when the plan allows (one project each),
// or a link to the upgrade when it shows them locked.
import { BlockStack, Button, InlineStack, Select, Tag, Text } from '@shopify/polaris';
import { groupLanguageOptions } from '../../../lib/format';
import type { CreateDubForm } from './useCreateDubForm';

export function LanguageFields({ form: f }: { form: CreateDubForm }) {
  const { srcLang, dstLang, dstOptions, extraLangs, setExtraLangs } = f;
  return (
    <>
      {/* Side by side where both fit, one above the other on a phone (a long variant name never pushes the target
          picker out of the dialog). */}
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(200px, 1fr))', gap: 'var(--p-space-400)' }}>
        <div style={{ minWidth: 0 }}>
          <Select label="Source language" options={f.srcOptions} value={srcLang} onChange={f.setSrcLang} error={f.show('srcLang') || undefined} />
        </div>
        <div style={{ minWidth: 0 }}>
          <Select
            label="Target language"
            options={groupLanguageOptions(dstOptions)}
            value={dstLang}
            onChange={f.setDstLang}
            helpText={dstOptions.find((o) => o.value === dstLang)?.note}
            error={(dstLang && srcLang === dstLang ? f.errors.dstLang : f.show('dstLang')) || undefined}
          />
        </div>
      </div>
      {f.multiOn && (
        <BlockStack gap="200">
          <Select
            label="More target languages (optional)"
            helpText="One upload and one transcript: each language becomes its own project, listed under this one."
            options={[
              { label: 'Add a language…', value: '' },
              ...groupLanguageOptions(dstOptions.filter((o) => o.value !== srcLang && o.value !== dstLang && !extraLangs.includes(o.value))),
            ]}
            value=""
            onChange={(v) => v && setExtraLangs((l) => (l.includes(v) || l.length >= 9 ? l : [...l, v]))}
          />
          {extraLangs.length > 0 && (
            <InlineStack gap="200">
              {extraLangs.map((l) => (
                <Tag key={l} onRemove={() => setExtraLangs((x) => x.filter((y) => y !== l))} accessibilityLabel={`Remove ${labelOf(dstOptions, l)}`}>
                  {labelOf(dstOptions, l)}
                </Tag>
              ))}
            </InlineStack>
          )}
          {extraLangs.length > 0 && (
            <Text as="p" tone="subdued" variant="bodySm">
              {extraLangs.length + 1} projects: each dub is charged when you generate it.
            </Text>
          )}
        </BlockStack>
      )}
      {f.multiLocked && (
        <div>
          <Button variant="plain" onClick={() => f.setUpgrade({ feature: 'multilanguage' })}>
            Translate into several languages at once
          </Button>
        </div>
      )}
    </>
  );
}

function labelOf(options: Array<{ label: string; value: string }>, value: string): string {
  return options.find((o) => o.value === value)?.label ?? value.toUpperCase();
}
