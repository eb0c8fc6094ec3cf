// One row of the segment list: speaker, start/end (hh:mm:ss,mmm, validated), source and translated text,
// and the row actions. Plain elements so rows mount cheaply while scrolling. A narrow row (a phone, a narrow
// window) puts the times on their own line and the actions in a menu, so nothing leaves the screen.
import { memo, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { TEXT } from '../../../../contract/errors';
import type { EditorSegment, SegmentPatch } from '../lib/segments';
import { formatSrtTime as formatTimestamp } from '../../../../contract/timecodes';
import { checkSegmentTimes } from '../lib/time';
import { missingTerms, unappliedTerms } from '../lib/terms';
import type { AttentionItem } from '../../../../contract/schemas/quality';
import { SegmentFlags } from './SegmentFlags';
import { TimingBar } from './TimingBar';
import type { Segment } from '../../../../contract/schemas/project';
import { SourceText } from './SourceText';

export const ROW_HEIGHT = 156;
/** A narrow row carries the times on a second line. */
export const ROW_HEIGHT_NARROW = ROW_HEIGHT + 34;
const NO_TIME_ERROR: { start: string | null; end: string | null } = { start: null, end: null };

export interface SpeakerOption {
  id: string;
  name: string;
}

export interface SegmentRowProps {
  segment: EditorSegment;
  index: number;
  selected: boolean;
  active: boolean;
  dirty: boolean;
  speakers: readonly SpeakerOption[];
  durationSec: number | null;
  canMergeNext: boolean;
  readOnly: boolean;
  onSelect: (id: string) => void;
  onChange: (id: string, patch: SegmentPatch) => void;
  onInvalid: (id: string, invalid: boolean) => void;
  onPlay: (id: string) => void;
  onSplit: (id: string, caret: { field: 'src' | 'dst'; at: number } | null) => void;
  onMergeNext: (id: string) => void;
  onDelete: (id: string) => void;
  onMove: (id: string, delta: 1 | -1) => void;
  /** The quality report's flags of this segment. */
  flags?: readonly AttentionItem[];
  /** Narrow layout: times on a second line, actions in a menu. */
  narrow?: boolean;
  /** The project (the timing fixes call the server for this segment). */
  projectId?: string;
  /** Drift of the last dub at this segment (the quality report's), seconds. */
  driftSec?: number | null;
  /** A segment as the server saved it (after a timing fix). */
  onServerSegment?: (s: Segment) => void;
}

interface RowAction {
  label: string;
  name: string;
  disabled?: boolean;
  danger?: boolean;
  run: () => void;
}

/** The row's actions behind one button (narrow rows): a menu of buttons, Escape or a click outside closes it. */
function RowMenu({ n, actions }: { n: number; actions: RowAction[] }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const outside = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside, true);
    root.current?.querySelector<HTMLButtonElement>('[role="menuitem"]:not(:disabled)')?.focus();
    return () => document.removeEventListener('pointerdown', outside, true);
  }, [open]);
  return (
    <div
      className="ed-menu"
      ref={root}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          e.stopPropagation();
          setOpen(false);
          root.current?.querySelector<HTMLButtonElement>('.ed-menu-button')?.focus();
        }
      }}
    >
      <button type="button" className="ed-btn ed-menu-button" aria-haspopup="menu" aria-expanded={open} aria-label={`Actions for segment ${n}`} onClick={() => setOpen((o) => !o)}>
        ⋯
      </button>
      {open ? (
        <div className="ed-menu-list" role="menu" aria-label={`Actions for segment ${n}`}>
          {actions.map((a) => (
            <button
              key={a.name}
              type="button"
              role="menuitem"
              className={`ed-menu-item${a.danger ? ' ed-btn-danger' : ''}`}
              disabled={a.disabled}
              onClick={() => {
                setOpen(false);
                a.run();
              }}
            >
              {a.name}
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}

function overlapText(edges: readonly string[] | undefined): string | null {
  if (!edges || edges.length === 0) return null;
  if (edges.length === 2) return 'Start and end overlap other segments of this speaker';
  return edges[0] === 'start'
    ? 'Start overlaps the previous segment of this speaker'
    : 'End overlaps the next segment of this speaker';
}

export const SegmentRow = memo(function SegmentRow(p: SegmentRowProps) {
  const s = p.segment;
  const missing = missingTerms(s.terms, s.dst.text);
  const unapplied = unappliedTerms(s.terms, missing);
  const [startText, setStartText] = useState(formatTimestamp(s.start));
  const [endText, setEndText] = useState(formatTimestamp(s.end));
  const [timeError, setTimeError] = useState<{ start: string | null; end: string | null }>(NO_TIME_ERROR);
  const [caret, setCaret] = useState<{ field: 'src' | 'dst'; at: number } | null>(null);

  const hadError = useRef(false);
  hadError.current = !!(timeError.start || timeError.end);
  // The server copy or another edit moved the times: show them (and drop a pending invalid text).
  // Nothing happens on mount, so a row entering the window renders once.
  const shownTimes = useRef({ start: s.start, end: s.end });
  useEffect(() => {
    if (shownTimes.current.start === s.start && shownTimes.current.end === s.end) return;
    shownTimes.current = { start: s.start, end: s.end };
    setStartText(formatTimestamp(s.start));
    setEndText(formatTimestamp(s.end));
    setTimeError(NO_TIME_ERROR);
    if (hadError.current) p.onInvalid(s.id, false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [s.start, s.end]);
  // A row scrolled out of the window forgets a time text that was never valid.
  useEffect(
    () => () => {
      if (hadError.current) p.onInvalid(s.id, false);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [s.id],
  );

  const commitTimes = (st = startText, et = endText) => {
    const c = checkSegmentTimes(st, et, p.durationSec);
    setTimeError({ start: c.startError, end: c.endError });
    const invalid = !!(c.startError || c.endError);
    p.onInvalid(s.id, invalid);
    if (!invalid && c.start !== null && c.end !== null && (c.start !== s.start || c.end !== s.end)) {
      p.onChange(s.id, { start: c.start, end: c.end });
    }
  };
  const revertTimes = () => {
    setStartText(formatTimestamp(s.start));
    setEndText(formatTimestamp(s.end));
    setTimeError(NO_TIME_ERROR);
    p.onInvalid(s.id, false);
  };
  const timeKeys = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      commitTimes();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      revertTimes();
    }
  };
  const rowKeys = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.altKey && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      e.preventDefault();
      p.onMove(s.id, e.key === 'ArrowDown' ? 1 : -1);
    }
  };

  const timeMsg = timeError.start ?? timeError.end;
  const overlap = overlapText(s.overlappedTimestamps);
  const message = s.isSavingError
    ? { tone: 'critical', text: TEXT.segmentSaveFailed }
    : timeMsg
      ? { tone: 'critical', text: timeMsg }
      : overlap
        ? { tone: 'warning', text: overlap }
        : null;
  const n = p.index + 1;
  const hasSpeaker = p.speakers.some((sp) => sp.id === s.speaker);
  const actions: RowAction[] = [
    { name: 'Play', label: `Play segment ${n}`, run: () => p.onPlay(s.id) },
    { name: 'Split', label: `Split segment ${n}`, disabled: p.readOnly || s.end - s.start < 0.2, run: () => p.onSplit(s.id, caret) },
    { name: 'Merge', label: `Merge segment ${n} with the next`, disabled: p.readOnly || !p.canMergeNext, run: () => p.onMergeNext(s.id) },
    { name: 'Delete', label: `Delete segment ${n}`, disabled: p.readOnly, danger: true, run: () => p.onDelete(s.id) },
  ];
  const times = (
    <span className="ed-times">
      <input
        className="ed-time"
        aria-label={`Start of segment ${n}`}
        aria-invalid={!!timeError.start || s.overlappedTimestamps?.includes('start') ? true : undefined}
        value={startText}
        disabled={p.readOnly}
        spellCheck={false}
        onChange={(e) => setStartText(e.target.value)}
        onBlur={() => commitTimes()}
        onKeyDown={timeKeys}
      />
      <span aria-hidden>–</span>
      <input
        className="ed-time"
        aria-label={`End of segment ${n}`}
        aria-invalid={!!timeError.end || s.overlappedTimestamps?.includes('end') ? true : undefined}
        value={endText}
        disabled={p.readOnly}
        spellCheck={false}
        onChange={(e) => setEndText(e.target.value)}
        onBlur={() => commitTimes()}
        onKeyDown={timeKeys}
      />
    </span>
  );

  return (
    <div
      className={`ed-row${p.narrow ? ' ed-row--narrow' : ''}`}
      data-segment-id={s.id}
      data-selected={p.selected}
      data-active={p.active}
      data-error={!!s.isSavingError}
      data-kept={s.keep_original ? true : undefined}
      onFocusCapture={() => {
        if (!p.selected) p.onSelect(s.id);
      }}
      onMouseDown={() => {
        if (!p.selected) p.onSelect(s.id);
      }}
      onKeyDown={rowKeys}
      aria-label={`Segment ${n}`}
      aria-current={p.active ? 'time' : undefined}
    >
      <div className="ed-head">
        <span className="ed-idx">#{n}</span>
        <select
          aria-label={`Speaker of segment ${n}`}
          value={s.speaker}
          disabled={p.readOnly}
          onChange={(e) => p.onChange(s.id, { speaker: e.target.value })}
        >
          {!hasSpeaker && <option value={s.speaker}>{s.speaker || 'No speaker'}</option>}
          {p.speakers.map((sp) => (
            <option key={sp.id} value={sp.id}>
              {sp.name}
            </option>
          ))}
        </select>
        {p.narrow ? null : times}
        <span className="ed-spacer" />
        {p.narrow ? (
          <RowMenu n={n} actions={actions} />
        ) : (
          actions.map((a) => (
            <button key={a.name} type="button" className={`ed-btn${a.danger ? ' ed-btn-danger' : ''}`} disabled={a.disabled} onClick={a.run} aria-label={a.label}>
              {a.name}
            </button>
          ))
        )}
      </div>
      {p.narrow ? <div className="ed-head ed-head-times">{times}</div> : null}
      <div className="ed-texts">
        <label>
          Source ({s.src.lang})
          <SourceText
            label={`Source text of segment ${n}`}
            value={s.src.text}
            words={s.words}
            readOnly={p.readOnly}
            onChange={(e) => p.onChange(s.id, { srcText: e.target.value })}
            onSelect={(e) => setCaret({ field: 'src', at: e.currentTarget.selectionStart })}
          />
        </label>
        <label>
          Translation ({s.dst.lang})
          <textarea
            aria-label={`Translation of segment ${n}`}
            data-translation
            value={s.dst.text}
            readOnly={p.readOnly}
            onChange={(e) => p.onChange(s.id, { dstText: e.target.value })}
            onSelect={(e) => setCaret({ field: 'dst', at: e.currentTarget.selectionStart })}
          />
        </label>
      </div>
      <div className="ed-foot">
        <div className={`ed-msg${message ? ` ed-msg-${message.tone}` : ''}`} role={message?.tone === 'critical' ? 'alert' : undefined}>
          {message?.text ?? ''}
        </div>
        {p.dirty && <span className="ed-tag ed-tag-changed">Unsaved</span>}
        {!p.dirty && s.status === 'updated' && <span className="ed-tag ed-tag-changed">Changed</span>}
        {s.status === 'processing' && <span className="ed-tag ed-tag-processing">Processing</span>}
        {missing.length > 0 && (
          <span
            className="ed-tag ed-tag-term"
            data-unapplied={unapplied.length > 0 || undefined}
            title={missing
              .map((t) => `"${t.source}" should be translated as "${t.target}"${unapplied.includes(t) ? ': the translation engine could not apply it here, add it by hand' : ''}`)
              .join('\n')}
          >
            {unapplied.length === missing.length ? 'Term not applied by the translation' : 'Missing term'}: {missing.map((t) => t.target).join(', ')}
          </span>
        )}
        <SegmentFlags items={p.flags} />
        {p.projectId && p.onServerSegment ? (
          <TimingBar segment={s} n={n} projectId={p.projectId} driftSec={p.driftSec} readOnly={p.readOnly} dirty={p.dirty} onSegment={p.onServerSegment} />
        ) : null}
      </div>
    </div>
  );
});
