// The source text of a segment, with the words the recognizer was unsure of shaded (issue 33): a layer over the
// textarea repeats its text invisibly and marks the doubtful words with a subtle background, so a user knows where
// to listen. Hovering a shaded word says "Unsure word"; clicking it selects the word in the textarea to correct it.
// A word the user corrected is no longer shaded (contract/confidence.ts matches the recognised words to the text).
import { useId, useMemo, useRef, type ChangeEvent, type MouseEvent, type ReactNode, type SyntheticEvent } from 'react';
import { scoreTextWords } from '../../../../contract/confidence';
import type { EditorSegment } from '../lib/segments';
import './source-text.css';

export interface SourceTextProps {
  label: string;
  value: string;
  words: EditorSegment['words'];
  readOnly: boolean;
  onChange: (e: ChangeEvent<HTMLTextAreaElement>) => void;
  onSelect: (e: SyntheticEvent<HTMLTextAreaElement>) => void;
}

export function SourceText(p: SourceTextProps) {
  const area = useRef<HTMLTextAreaElement>(null);
  const layer = useRef<HTMLDivElement>(null);
  const marked = useMemo(() => (p.words?.length ? scoreTextWords(p.value, p.words).filter((w) => w.doubtful) : []), [p.value, p.words]);
  const unsure = marked.map((w) => p.value.slice(w.from, w.to));
  const describedBy = useId();
  const pick = (e: MouseEvent, from: number, to: number) => {
    e.preventDefault();
    const t = area.current;
    if (!t) return;
    t.focus();
    t.setSelectionRange(from, to);
  };
  const parts: ReactNode[] = [];
  let at = 0;
  for (const w of marked) {
    if (w.from > at) parts.push(p.value.slice(at, w.from));
    parts.push(
      <mark
        key={w.from}
        className="ed-unsure"
        title={`Unsure word (${Math.round((w.confidence ?? 0) * 100)}% sure): listen to check it`}
        aria-label="Unsure word"
        data-unsure-word={p.value.slice(w.from, w.to)}
        onMouseDown={(e) => pick(e, w.from, w.to)}
      >
        {p.value.slice(w.from, w.to)}
      </mark>,
    );
    at = w.to;
  }
  if (at < p.value.length) parts.push(p.value.slice(at));
  return (
    <span className="ed-src-field">
      <textarea
        ref={area}
        aria-label={p.label}
        aria-describedby={marked.length ? describedBy : undefined}
        value={p.value}
        readOnly={p.readOnly}
        onChange={p.onChange}
        onSelect={p.onSelect}
        onScroll={(e) => {
          if (layer.current) layer.current.scrollTop = e.currentTarget.scrollTop;
        }}
      />
      {marked.length > 0 && (
        <>
          <div ref={layer} className="ed-unsure-layer" aria-hidden="true">
            {parts}
            {'\n'}
          </div>
          <span id={describedBy} className="ed-visually-hidden">
            {`Unsure word${unsure.length === 1 ? '' : 's'}, worth a listen: ${unsure.join(', ')}`}
          </span>
        </>
      )}
    </span>
  );
}
