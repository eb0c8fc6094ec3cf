// AI rewrite of one segment in the editor (issue 15): Shorten to fit (a text that is spoken within the segment's
// slot at the voice's speech rate), Rephrase, or the caller's own instruction, through the LLM engine. It only
// proposes: the editor shows the text beside the current one, and saving it is the normal segment save.
import type * as v from 'valibot';
import type { SegmentRewriteRequest, SegmentRewriteResponse } from '../../../contract/schemas/tools';
import type { AppDeps } from '../../deps';
import type { UserRow } from '../../caller';
import { DomainError, notFound, unprocessable } from '../../errors';
import { loadProject } from '../projects/service';
import { speakersOf } from '../projects/repository';
import { savedSegmentBudget } from '../projects/stages/budget';
import { segmentsOf } from '../projects/transcript/repository';
import { AI_REWRITE_NOT_CONFIGURED, engineFailure, rewriterOf } from './service';

type Input = v.InferOutput<typeof SegmentRewriteRequest>;

export function segmentInstructions(mode: Input['mode'], o: { slotSec: number; maxChars: number; current: number; voice: string | null; extra?: string | null }): string {
  const parts: string[] = [];
  if (mode === 'shorten') {
    parts.push(
      `This line is dubbed over a ${o.slotSec.toFixed(1)} s slot${o.voice ? ` by the voice "${o.voice}"` : ''}: at that voice's speech rate, at most ${o.maxChars} characters fit (it has ${o.current}).`,
      'Shorten it to fit while keeping its meaning, names and tone.',
    );
  } else if (mode === 'rephrase') {
    parts.push('Rephrase this line with other words: same meaning, same tone, about the same length, natural when spoken.');
  }
  if (o.extra) parts.push(o.extra);
  parts.push('Keep the language of the text.');
  return parts.join(' ');
}

export async function rewriteSegment(
  deps: AppDeps, user: UserRow, projectId: string, segmentId: string, body: Input, signal?: AbortSignal,
): Promise<SegmentRewriteResponse> {
  const { project } = await loadProject(deps, user, projectId);
  const seg = (await segmentsOf(deps.db, project.id, [segmentId]))[0];
  if (!seg) throw notFound(`Segment not found: ${segmentId}`);
  if (body.mode === 'instruction' && !body.instructions?.trim()) {
    throw unprocessable([{ loc: ['body', 'instructions'], msg: 'Write what to do with the line', type: 'value_error' }]);
  }
  const text = (body.text ?? seg.dst_text).trim();
  if (!text) throw unprocessable([{ loc: ['body', 'text'], msg: 'The translation is empty: write it first', type: 'value_error' }]);
  const rewriter = rewriterOf(deps);
  if (!rewriter) throw new DomainError('unavailable', AI_REWRITE_NOT_CONFIGURED);
  // The translation stage's budget (projects/stages/budget.ts): the slot, the pause after it, the voice's rate.
  const budget = await savedSegmentBudget(deps.db, project.id, project.dst_lang, seg);
  const slotSec = budget.slot_sec + budget.pause_sec;
  const cps = budget.chars_per_sec;
  const maxChars = budget.chars;
  const voiceId = (await speakersOf(deps.db, project.id)).find((s) => s.id === seg.speaker)?.voice_id ?? null;
  const voice = voiceId ? ((await deps.engines.voices(project.dst_lang)).find((x) => x.id === voiceId)?.name ?? voiceId) : null;
  try {
    const out = await rewriter.rewrite(
      {
        text,
        lang: project.dst_lang,
        ...(body.mode === 'shorten' ? { maxChars } : {}),
        instructions: segmentInstructions(body.mode, { slotSec, maxChars, current: text.length, voice, extra: body.instructions }),
      },
      { signal },
    );
    return { text: out.trim(), mode: body.mode, slot_sec: Math.round(slotSec * 1000) / 1000, max_chars: maxChars, chars_per_sec: cps };
  } catch (e) {
    throw engineFailure(e);
  }
}
