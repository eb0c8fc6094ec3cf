// Stage 7, translation: machine translation with the project's glossary forced and a length budget per
// segment (./budget.ts: the slot and the pause after it x the voice's characters per second), or an uploaded
// target SRT. The engines shorten what is over budget (an LLM asks again; the built-in MT's offline rewrites).
import type { Cue } from '../../../media/subtitles';
import { findGlossary, speakersOf } from '../repository';
import { checkSegmentTerms, termRuleHits, termsFor } from '../../glossaries/check';
import { segmentsOf, setSegmentTranslations, type SegmentRow } from '../transcript/repository';
import { ready } from '../../../engines/registry';
import { StageFailure } from '../pipeline/stages';
import { checkAborted, srtCues, timed, type ProjectStageContext } from './common';
import { segmentBudgets } from './budget';

const MT_BATCH = 40;

/** Assigns target cues to segments: 1:1 when the counts match the source SRT, else by largest overlap. */
export function mapCuesToSegments(segs: readonly Pick<SegmentRow, 'id' | 'start_sec' | 'end_sec'>[], cues: readonly Cue[], oneToOne: boolean): Map<string, string> {
  const out = new Map<string, string[]>();
  if (oneToOne && cues.length === segs.length) {
    segs.forEach((s, i) => out.set(s.id, [cues[i]!.text]));
  } else {
    for (const c of cues) {
      let best: string | null = null;
      let bestScore = -Infinity;
      for (const s of segs) {
        const overlap = Math.min(c.end, s.end_sec) - Math.max(c.start, s.start_sec);
        const score = overlap > 0 ? overlap : -Math.abs((c.start + c.end) / 2 - (s.start_sec + s.end_sec) / 2) - 1e6;
        if (score > bestScore) {
          bestScore = score;
          best = s.id;
        }
      }
      if (best) out.set(best, [...(out.get(best) ?? []), c.text]);
    }
  }
  return new Map([...out].map(([k, v]) => [k, v.join(' ').replace(/\s*\n\s*/g, ' ').trim()]));
}

export async function translation(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  const segs = await segmentsOf(deps.db, project.id);
  if (segs.length === 0) throw new StageFailure('translation_failed', 'The transcript is empty');

  if (project.dst_srt_media_id) {
    const cues = await srtCues(ctx, project.dst_srt_media_id, 'target');
    const mapped = mapCuesToSegments(segs, cues, !!project.src_srt_media_id);
    await setSegmentTranslations(deps.db, project.id, segs.map((s) => ({ id: s.id, dst: mapped.get(s.id) ?? '' })), 'done');
    return;
  }

  const mt = await deps.engines.mtFor(project.src_lang, project.dst_lang);
  if (!mt) {
    throw new StageFailure('translation_failed', `Translation from "${project.src_lang}" to "${project.dst_lang}" is not available`);
  }
  await ready(mt);
  const glossary = project.glossary_id ? await findGlossary(deps.db, project.glossary_id) : null;
  const entries = glossary?.terms ?? [];
  const terms = termsFor(entries);
  // Each segment's character budget: its slot (and the pause after it) at the speaker's voice rate (./budget.ts).
  const profiles = new Map((await speakersOf(deps.db, project.id)).map((sp) => [sp.id, sp.profile]));
  const budgets = segmentBudgets(segs, project.dst_lang, profiles);
  for (let i = 0; i < segs.length; i += MT_BATCH) {
    checkAborted(ctx);
    const batch = segs.slice(i, i + MT_BATCH);
    const texts = batch.map((s) => s.src_text);
    const maxChars = batch.map((s) => budgets.get(s.id)!.chars);
    const out = await timed(ctx, 'mt', () =>
      mt.translate(texts, project.src_lang, project.dst_lang, {
        signal: ctx.signal,
        glossary: terms.length > 0 ? terms : undefined,
        maxChars,
      }),
    );
    if (out.length !== batch.length) throw new Error(`translation returned ${out.length} texts for ${batch.length} segments`);
    await setSegmentTranslations(
      deps.db,
      project.id,
      batch.map((s, j) => {
        const dst = (out[j] ?? '').trim();
        // Which dictionary terms this segment was expected to carry, and which its translation has; and which
        // rule fired where (a term the engine could not apply is kept with applied: false).
        return {
          id: s.id, dst,
          glossaryCheck: glossary ? checkSegmentTerms(s.src_text, dst, entries) : null,
          termHits: glossary ? termRuleHits(s.src_text, dst, entries) : null,
        };
      }),
      'done',
    );
    ctx.progress?.((i + batch.length) / segs.length);
  }
}
