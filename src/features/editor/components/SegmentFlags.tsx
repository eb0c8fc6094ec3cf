// The quality report's flags of one segment (issue 28), on its row: a small tag per flag with the reason, and the
// suggested action in its tooltip and accessible name. The items come from the report (GET /api/project/{id}/quality).
import { useMemo } from 'react';
import type { AttentionItem } from '../../../../contract/schemas/quality';
import { useQuality } from '../api';

const SHORT: Record<string, string> = {
  overflow: 'Runs past its slot',
  fast_speech: 'Spoken fast',
  slow_speech: 'Spoken slowly',
  overlap: 'Overlaps',
  drift: 'Starts off time',
  missing_speech: 'No voice heard',
  glossary: 'Dictionary term',
  low_asr_confidence: 'Check the transcript',
  doubtful_words: 'Unsure words',
  speech_under_dub: 'Original voice audible',
  background_dip: 'Background drops',
  subtitles: 'Subtitle hard to read',
};

/** A short label for a flag (unknown kinds, added by other checks, show their reason's start). */
export function flagLabel(item: AttentionItem): string {
  const known = SHORT[item.kind];
  if (known) return known;
  if (item.reason.length <= 28) return item.reason;
  // cut at a word
  const cut = item.reason.slice(0, 28);
  const space = cut.lastIndexOf(' ');
  return `${cut.slice(0, space > 10 ? space : 27)}…`;
}

export function SegmentFlags({ items }: { items: readonly AttentionItem[] | undefined }) {
  if (!items || items.length === 0) return null;
  return (
    <span className="ed-flags" data-flags={items.length}>
      {items.map((f) => (
        <span
          key={f.kind}
          className={`ed-tag ed-tag-flag ed-tag-flag-${f.severity}`}
          title={`${f.reason}\n${f.action}`}
          aria-label={`Quality: ${f.reason} ${f.action}`}
          data-flag={f.kind}
        >
          {flagLabel(f)}
        </span>
      ))}
    </span>
  );
}

/** The report's flags by segment id (none until a dub has a report; `version` as QualityPanel's). */
export function useSegmentFlags(projectId: string, version: string | null): ReadonlyMap<string, AttentionItem[]> | undefined {
  const { data } = useQuality(version ? projectId : null);
  return useMemo(() => {
    if (!data) return undefined;
    const m = new Map<string, AttentionItem[]>();
    for (const a of data.attention) {
      if (!a.segment_id) continue;
      const list = m.get(a.segment_id);
      if (list) list.push(a);
      else m.set(a.segment_id, [a]);
    }
    return m;
  }, [data]);
}
