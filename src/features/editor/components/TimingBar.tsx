// A segment's timing on its row (issue 29): a small bar with the speed factor and fit in words (green within
// 0.9-1.1x, amber to 1.25x, red beyond or cut; the drift of the last dub in its description), and on an amber
// or red segment a "Fix timing" menu: Shorten, Let it borrow the pause, Keep the original audio here. A segment
// kept in the original shows so, with "Dub it again" to undo.
import { useEffect, useRef, useState } from 'react';
import type { Segment } from '../../../../contract/schemas/project';
import { borrowPause, keepOriginal, shortenSegment } from '../api';
import { segmentFit } from '../lib/timing';

export interface TimingBarProps {
  segment: Pick<Segment, 'id' | 'speed_factor' | 'overflow' | 'keep_original'>;
  /** 1-based position, for names. */
  n: number;
  projectId: string;
  /** Drift of the last dub at this segment (seconds; the quality report's), when known. */
  driftSec?: number | null;
  readOnly: boolean;
  /** The row has unsaved edits: the server calls would not see them. */
  dirty: boolean;
  /** The segment as the server saved it. */
  onSegment: (s: Segment) => void;
}

type Action = 'shorten' | 'borrow' | 'keep' | 'unkeep';

function errorText(e: unknown): string {
  return e instanceof Error && e.message ? e.message : 'The request failed: try again';
}

export function TimingBar(p: TimingBarProps) {
  const fit = segmentFit(p.segment, p.driftSec);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<Action | null>(null);
  const [result, setResult] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const root = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (!open) return;
    const outside = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside, true);
    root.current?.querySelector<HTMLButtonElement>('[role="menuitem"]:not(:disabled)')?.focus();
    return () => document.removeEventListener('pointerdown', outside, true);
  }, [open]);

  const run = async (a: Action) => {
    setOpen(false);
    setBusy(a);
    setResult(null);
    try {
      if (a === 'shorten') {
        const r = await shortenSegment(p.projectId, p.segment.id);
        p.onSegment(r.segment);
        const by = r.method === 'llm' ? 'by the AI' : 'offline';
        setResult({ tone: 'ok', text: `Shortened ${by}: ${r.before_chars} → ${r.after_chars} characters (fits in ${r.budget_chars})` });
      } else if (a === 'borrow') {
        const r = await borrowPause(p.projectId, p.segment.id);
        p.onSegment(r.segment);
        setResult({ tone: 'ok', text: `Borrowed ${(r.borrowed_sec ?? 0).toFixed(2)} s of the pause` });
      } else {
        const r = await keepOriginal(p.projectId, p.segment.id, a === 'keep');
        p.onSegment(r.segment);
        setResult({ tone: 'ok', text: a === 'keep' ? 'The original audio plays here in the next dub' : 'This segment is dubbed again in the next dub' });
      }
    } catch (e) {
      setResult({ tone: 'error', text: errorText(e) });
    } finally {
      setBusy(null);
    }
  };

  const blocked = p.readOnly || busy !== null || p.dirty;
  const why = p.dirty ? 'Save your changes first' : undefined;
  const actions: Array<{ a: Action; name: string }> = [
    { a: 'shorten', name: 'Shorten' },
    { a: 'borrow', name: 'Let it borrow the pause' },
    { a: 'keep', name: 'Keep the original audio here' },
  ];

  return (
    <span className="ed-fit" data-fit={fit.level} ref={root}>
      <span className="ed-fit-chip" title={fit.description} aria-label={fit.description} role="img">
        {fit.level === 'kept' || fit.level === 'unknown' ? null : (
          <span className="ed-fit-track" aria-hidden>
            <span className="ed-fit-fill" style={{ width: `${Math.round(fit.fill * 100)}%` }} />
          </span>
        )}
        <span className="ed-fit-label" aria-hidden>
          {fit.label}
        </span>
      </span>
      {fit.level === 'kept' && !p.readOnly ? (
        <button type="button" className="ed-btn ed-fit-undo" disabled={blocked} title={why} onClick={() => void run('unkeep')} aria-label={`Dub segment ${p.n} again`}>
          {busy === 'unkeep' ? 'Saving…' : 'Dub it again'}
        </button>
      ) : null}
      {fit.fixable && !p.readOnly ? (
        <span
          className="ed-menu"
          onKeyDown={(e) => {
            if (e.key === 'Escape' && open) {
              e.stopPropagation();
              setOpen(false);
            }
          }}
        >
          <button
            type="button"
            className="ed-btn ed-fit-fix"
            aria-haspopup="menu"
            aria-expanded={open}
            disabled={blocked}
            title={why}
            aria-label={`Fix the timing of segment ${p.n}`}
            onClick={() => setOpen((o) => !o)}
          >
            {busy ? 'Working…' : 'Fix timing'}
          </button>
          {open ? (
            <span className="ed-menu-list ed-fit-menu" role="menu" aria-label={`Fix the timing of segment ${p.n}`}>
              {actions.map((x) => (
                <button key={x.a} type="button" role="menuitem" className="ed-menu-item" onClick={() => void run(x.a)}>
                  {x.name}
                </button>
              ))}
            </span>
          ) : null}
        </span>
      ) : null}
      {result ? (
        <span className={`ed-fit-result${result.tone === 'error' ? ' ed-msg-critical' : ''}`} role={result.tone === 'error' ? 'alert' : 'status'} title={result.text}>
          {result.text}
        </span>
      ) : null}
    </span>
  );
}
