// Shorten one segment's translation to its character budget and save it (issue 29, "Length that fits"): through
// the LLM engine when one is configured, else with the offline rewrites (server/engines/offline-shorten.ts). The
// budget is the translation stage's (projects/stages/budget.ts). Dictionary terms the line holds are kept: a
// shortening that loses one is not saved.
import type { SegmentShortenResponse } from '../../../../contract/schemas/tools';
import type { AppDeps } from '../../../deps';
import type { UserRow } from '../../../caller';
import { shortenOffline } from '../../../engines/offline-shorten';
import { conflict, notFound, unprocessable } from '../../../errors';
import { findGlossary } from '../repository';
import { loadProject } from '../service';
import { savedSegmentBudget } from '../stages/budget';
import { checkSegmentTerms } from '../../glossaries/check';
import { engineFailure, rewriterOf } from '../../tools/service';
import { segmentInstructions } from '../../tools/segment-rewrite';
import * as repo from './repository';
import { editable, markEdited, shapeSegments } from './service';

const lower = (s: string) => s.toLowerCase();

export async function shortenSegment(
  deps: AppDeps, user: UserRow, projectId: string, segmentId: string, signal?: AbortSignal,
): Promise<SegmentShortenResponse> {
  const { project } = await loadProject(deps, user, projectId);
  const seg = (await repo.segmentsOf(deps.db, project.id, [segmentId]))[0];
  if (!seg) throw notFound(`Segment not found: ${segmentId}`);
  const text = seg.dst_text.trim();
  if (!text) throw unprocessable([{ loc: ['segment', 'dst'], msg: 'The translation is empty: there is nothing to shorten', type: 'value_error' }]);
  const budget = await savedSegmentBudget(deps.db, project.id, project.dst_lang, seg);
  const before = text.length;
  if (before <= budget.chars) {
    throw conflict(`The line already fits: ${before} characters, ${budget.chars} fit its ${(budget.slot_sec + budget.pause_sec).toFixed(1)} s`);
  }
  // The dictionary terms the translation holds now must still be there after.
  const glossary = project.glossary_id ? await findGlossary(deps.db, project.glossary_id) : null;
  const keep = glossary ? checkSegmentTerms(seg.src_text, text, glossary.terms ?? []).found.map((t) => t.target) : [];
  const keepsTerms = (t: string) => keep.every((k) => lower(t).includes(lower(k)));

  const rewriter = rewriterOf(deps);
  let method: 'llm' | 'offline';
  let out: string;
  if (rewriter) {
    method = 'llm';
    const extra = keep.length ? `Keep these dictionary terms exactly as written: ${keep.map((k) => `"${k}"`).join(', ')}.` : null;
    try {
      out = (
        await rewriter.rewrite(
          {
            text,
            lang: project.dst_lang,
            maxChars: budget.chars,
            instructions: segmentInstructions('shorten', { slotSec: budget.slot_sec + budget.pause_sec, maxChars: budget.chars, current: before, voice: null, extra }),
          },
          { signal },
        )
      ).trim();
    } catch (e) {
      throw engineFailure(e);
    }
    if (!keepsTerms(out)) {
      throw unprocessable([{ loc: ['segment', 'dst'], msg: 'The shorter line the model proposed drops a dictionary term: shorten it by hand', type: 'value_error' }]);
    }
  } else {
    method = 'offline';
    out = shortenOffline(text, project.dst_lang, { budget: budget.chars, keep }).text;
  }
  if (!out || out.length >= before) {
    const why = method === 'llm' ? 'the model found no shorter wording' : 'no offline rewrite applies (no contraction, filler or aside to drop)';
    throw unprocessable([{ loc: ['segment', 'dst'], msg: `This line cannot be shortened: ${why}. Edit it by hand.`, type: 'value_error' }]);
  }

  const saved = await deps.db.tx(async (t) => {
    const p = await editable(t, project.id);
    const cur = (await repo.segmentsOf(t, p.id, [segmentId]))[0];
    if (!cur) throw notFound(`Segment not found: ${segmentId}`);
    if (cur.dst_text.trim() !== text) throw conflict('The translation changed while it was being shortened: try again');
    const row = (await repo.updateSegment(t, p.id, cur.id, { dst_text: out, status: 'updated' }))!;
    await markEdited(t, p);
    return row;
  });
  const [segment] = await shapeSegments(deps, project, [saved]);
  return { segment: segment!, method, budget_chars: budget.chars, before_chars: before, after_chars: out.length };
}
