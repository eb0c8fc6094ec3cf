// The editor shades the words the recognizer was unsure of in the source text (issue 33 part 3): a subtle mark over
// each doubtful word with "Unsure word" as its accessible name and tooltip, the textarea described by the list of
// unsure words; a word the user corrects loses its shading; a click on a shaded word selects it in the textarea.
// The quality panel counts them.
import { fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { SegmentRow } from '../../src/features/editor/components/SegmentRow';
import type { EditorSegment } from '../../src/features/editor/lib/segments';

const segment = (text: string, words?: EditorSegment['words']): EditorSegment => ({
  id: 's1', start: 1, end: 4, speaker: 'S1', status: 'done',
  src: { lang: 'en', text }, dst: { lang: 'es', text: 'Y el señor John Dashwood' },
  ...(words ? { words, asr_confidence: 0.61 } : {}),
});

const WORDS = [
  { text: 'and', start: 1, end: 1.2, confidence: 0.88 },
  { text: 'mister', start: 1.2, end: 1.5, confidence: 0.93 },
  { text: 'john', start: 1.5, end: 1.8, confidence: 0.31 },
  { text: 'dashwood', start: 1.8, end: 2.4, confidence: 0.12 },
];

function Row({ initial }: { initial: EditorSegment }) {
  const [s, setS] = useState(initial);
  const noop = vi.fn();
  return (
    <SegmentRow
      segment={s} index={0} selected={false} active={false} dirty={false} speakers={[{ id: 'S1', name: 'Speaker 1' }]} durationSec={10}
      canMergeNext={false} readOnly={false} onSelect={noop} onInvalid={noop} onPlay={noop} onSplit={noop} onMergeNext={noop} onDelete={noop} onMove={noop}
      onChange={(_, p) => setS((x) => ({ ...x, src: { ...x.src, text: p.srcText ?? x.src.text } }))}
    />
  );
}

describe('unsure words in the source text', () => {
  it('shades the doubtful words with "Unsure word" and describes the textarea with them', () => {
    render(<Row initial={segment('And Mister John Dashwood.', WORDS)} />);
    const marks = screen.getAllByLabelText('Unsure word');
    expect(marks.map((m) => m.textContent)).toEqual(['John', 'Dashwood.']);
    expect(marks[0]!.tagName).toBe('MARK');
    expect(marks[0]!.getAttribute('title')).toMatch(/^Unsure word \(31% sure\)/);
    const area = screen.getByLabelText('Source text of segment 1') as HTMLTextAreaElement;
    const described = document.getElementById(area.getAttribute('aria-describedby')!);
    expect(described?.textContent).toBe('Unsure words, worth a listen: John, Dashwood.');
    // the sure words are not marked, and the layer repeats the text where the textarea shows it
    expect(screen.queryByText('Mister', { selector: 'mark' })).toBeNull();
    expect(marks[0]!.parentElement!.textContent).toBe('And Mister John Dashwood.\n');
  });

  it('a corrected word loses its shading; clicking a shaded word selects it for correction', () => {
    render(<Row initial={segment('And Mister John Dashwood.', WORDS)} />);
    const area = screen.getByLabelText('Source text of segment 1') as HTMLTextAreaElement;
    fireEvent.mouseDown(screen.getAllByLabelText('Unsure word')[1]!);
    expect(document.activeElement).toBe(area);
    expect([area.selectionStart, area.selectionEnd]).toEqual([16, 25]);
    fireEvent.change(area, { target: { value: 'And Mister John Ashwood.' } });
    expect(screen.getAllByLabelText('Unsure word').map((m) => m.textContent)).toEqual(['John']);
    fireEvent.change(area, { target: { value: 'And Mister Jon Ashwood.' } });
    expect(screen.queryAllByLabelText('Unsure word')).toHaveLength(0);
    expect(area.getAttribute('aria-describedby')).toBeNull();
  });

  it('nothing is shaded without word scores (uploaded or typed text, a server that scores segments only)', () => {
    render(<Row initial={segment('And Mister John Dashwood.')} />);
    expect(screen.queryAllByLabelText('Unsure word')).toHaveLength(0);
    expect((screen.getByLabelText('Source text of segment 1') as HTMLTextAreaElement).value).toBe('And Mister John Dashwood.');
  });
});
