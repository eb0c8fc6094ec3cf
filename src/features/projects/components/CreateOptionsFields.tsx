// The options of a new dub: number of speakers, a dictionary, subtitle files or a source text, and under More
// options the words speech recognition should listen for.
import { Button, InlineStack, Select, TextField } from '@shopify/polaris';
import { SourceTextField } from './SourceTextField';
import { SrtPicker } from './SrtPicker';
import type { CreateDubForm } from './useCreateDubForm';

const SPEAKER_OPTIONS = [
  { label: 'Detect automatically', value: '' },
  ...Array.from({ length: 10 }, (_, i) => ({ label: String(i + 1), value: String(i + 1) })),
];

export function CreateOptionsFields({ form: f }: { form: CreateDubForm }) {
  const { srtUpload, srcSrt, dstSrt, moreOpen } = f;
  return (
    <>
      <Select label="Number of speakers" options={SPEAKER_OPTIONS} value={f.speakers} onChange={f.setSpeakers} />
      {f.glossaryOn && <Select label="Dictionary (optional)" options={f.glossaryOptions} value={f.glossaryId} onChange={f.setGlossaryId} />}
      {srtUpload && (
        <InlineStack gap="400" wrap={false}>
          <SrtPicker label="Source subtitles (optional)" state={srcSrt} onPick={f.srcSrtSlot.pick} onClear={f.srcSrtSlot.clear} />
          <SrtPicker label="Target subtitles (optional)" state={dstSrt} onPick={f.dstSrtSlot.pick} onClear={f.dstSrtSlot.clear} />
        </InlineStack>
      )}
      {srtUpload && <SourceTextField value={f.srcText} onChange={f.setSrcText} disabled={!!srcSrt} />}
      <div>
        <Button variant="plain" disclosure={moreOpen ? 'up' : 'down'} onClick={() => f.setMoreOpen((o) => !o)} ariaExpanded={moreOpen} ariaControls="create-more-options">
          More options
        </Button>
      </div>
      {moreOpen && (
        <div id="create-more-options">
          <TextField
            label="Words to listen for (names, products, places — one per line)"
            helpText="Optional. Speech recognition is told these words, so names it does not know are written as you spell them."
            autoComplete="off"
            multiline={4}
            value={f.wordsText}
            onChange={f.setWordsText}
            error={f.wordList.error ?? undefined}
            disabled={f.submitting}
          />
        </div>
      )}
    </>
  );
}
