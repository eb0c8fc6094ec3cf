// The dub's timing above the segment list (issue 29): how many segments fit, run fast or were cut, how many keep
// the original audio, and the last dub's largest drift. Words and counts, the colours only repeat them.
import { useMemo } from 'react';
import type { Segment } from '../../../../contract/schemas/project';
import { useQuality } from '../api';
import { fitCounts } from '../lib/timing';

export interface DubTiming {
  /** Drift of each segment's dubbed voice against its source (seconds), by segment id. */
  drift: ReadonlyMap<string, number | null>;
  maxDriftSec: number | null;
  /** The transcript changed since that dub. */
  stale: boolean;
}

/** The last dub's drift, from its quality report (none until a dub has a report; `version` as useSegmentFlags'). */
export function useDubTiming(projectId: string, version: string | null): DubTiming | undefined {
  const { data } = useQuality(version ? projectId : null);
  return useMemo(() => {
    if (!data) return undefined;
    return { drift: new Map(data.segments.map((s) => [s.id, s.drift_sec])), maxDriftSec: data.max_drift_sec, stale: data.stale };
  }, [data]);
}

export function TimingSummary({ segments, timing }: { segments: ReadonlyArray<Pick<Segment, 'speed_factor' | 'overflow' | 'keep_original'>>; timing?: DubTiming }) {
  const c = fitCounts(segments);
  if (c.good + c.tight + c.bad + c.kept === 0 && !timing) return null;
  const parts: Array<{ level: string; text: string }> = [];
  if (c.good) parts.push({ level: 'good', text: `${c.good} fit` });
  if (c.tight) parts.push({ level: 'tight', text: `${c.tight} fast` });
  if (c.bad) parts.push({ level: 'bad', text: `${c.bad} too fast or cut` });
  if (c.kept) parts.push({ level: 'kept', text: `${c.kept} original audio` });
  if (c.unknown && parts.length > 0) parts.push({ level: 'unknown', text: `${c.unknown} not dubbed yet` });
  return (
    <div className="ed-timing-summary" role="group" aria-label="Timing of the dub" data-testid="timing-summary">
      <span>Timing:</span>
      {parts.map((x) => (
        <span key={x.level} className="ed-fit" data-fit={x.level}>
          <span className="ed-fit-chip">{x.text}</span>
        </span>
      ))}
      {timing && timing.maxDriftSec !== null ? (
        <span data-testid="max-drift">
          Largest drift {timing.maxDriftSec.toFixed(2)} s{timing.stale ? ' (previous dub)' : ''}
        </span>
      ) : null}
    </div>
  );
}
