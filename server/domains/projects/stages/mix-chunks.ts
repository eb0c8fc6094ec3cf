// The merge's soundtrack built from chunks (issue 30): a re-dub re-encodes only the chunks its change touches.
//
// Each merge keeps, per chunk of the soundtrack (server/media/chunked-mix.ts), the hash of what its packets depend on,
// its packets (mix_chunks/…) and its loudness figures, with the loudness gain the mix was normalised with
// (mix_state.json). The next merge:
// - incremental, when the soundtrack has the same length, chunk plan and loudness target as the previous one and the
//   chunks whose inputs changed span at most REUSE_FRACTION (a quarter) of it (a re-dub of a few segments): the previous gain is
//   kept (the rule: a change within at most a quarter of the soundtrack moves its integrated loudness by a fraction of a LU,
//   the gain is not measured again), only the changed chunks are mixed and encoded, the others' packets are copied;
// - full otherwise (the reason is logged): the mix is measured (in-process) for a new gain and every chunk whose hash
//   at that gain differs is encoded (at an unchanged gain and inputs, chunks are copied even then).
// Both write the same bytes for the same inputs and gain: an incremental merge's soundtrack is the full merge's.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { measureMixLoudness } from '../../../media/ffmpeg';
import { loudnessGainDb, type LoudnessFigures, type MixOptions } from '../../../media/args';
import {
  CHUNK_FRAMES, adtsToM4a, chunkHashes, chunkPlan, combineLoudness, concatChunks, encodeChunk,
  type ChunkLoudness, type MixChunk,
} from '../../../media/chunked-mix';
import type { Envelope } from '../../../media/mix-measure';
import { key, loadJson, saveJson, type ProjectStageContext } from './common';

/** The share of the soundtrack a change may touch and still keep the previous loudness gain. */
export const REUSE_FRACTION = 0.25;
const STATE = 'mix_state.json';
const RATE = 48000;

interface MixState {
  version: 1;
  totalSamples: number;
  chunkFrames: number;
  targetLufs: number;
  gainDb: number;
  measuredLufs: number | null;
  chunks: Array<{ hash: string; key: string; loudness: ChunkLoudness }>;
}

export interface ChunkedMixResult {
  incremental: boolean;
  /** Why the merge was not incremental (null when it was, or when there was no previous merge). */
  fullReason: string | null;
  gainDb: number;
  measuredLufs: number | null;
  /** Chunks encoded by this merge, and in all. */
  encoded: number;
  chunks: number;
  /** Loudness, range and true peak of the soundtrack (from its chunks' measurements). */
  output: LoudnessFigures;
  /** The plain sum's and the background's envelopes (measured by a full merge only). */
  envelopes: { mix: Envelope; background: Envelope } | null;
}

/**
 * Mixes `o.voice` over `o.background` into `o.out` (M4A, AAC, exactly `durationSec`), normalised to `targetLufs`
 * (peaks limited at `o.loudness.TP`), reusing the previous merge's chunks where their inputs did not change.
 */
export async function mixInChunks(
  ctx: ProjectStageContext,
  o: MixOptions & { durationSec: number },
  targetLufs: Promise<number>,
  op: { signal: AbortSignal; hopSec: number; chunkFrames?: number },
): Promise<ChunkedMixResult> {
  const chunkFrames = op.chunkFrames ?? CHUNK_FRAMES;
  const total = Math.round(o.durationSec * RATE);
  const plan = chunkPlan(total, chunkFrames);
  const prev = await loadJson<MixState>(ctx, STATE).catch(() => null);
  // A first merge is a full one: its mix is measured while the target is still being found (the source's loudness is
  // measured by then, a pass of its own).
  const measuring = prev ? null : measureMixLoudness(o, { signal: op.signal, hopSec: op.hopSec });
  const [target, measuredFirst] = await Promise.all([targetLufs, measuring]);
  const have = async (k: string) => ctx.deps.storage.exists(k);

  let fullReason: string | null = null;
  let gainDb = 0;
  let measuredLufs: number | null = null;
  let envelopes: ChunkedMixResult['envelopes'] = null;
  let hashes: string[] | null = null;
  let incremental = false;
  if (!prev) fullReason = null;
  else if (prev.version !== 1 || prev.totalSamples !== total || prev.chunkFrames !== chunkFrames || prev.chunks.length !== plan.length) {
    fullReason = 'the soundtrack changed length or chunking';
  } else if (Math.abs(prev.targetLufs - target) > 0.05) {
    fullReason = `the loudness target changed (${prev.targetLufs} -> ${target} LUFS)`;
  } else {
    hashes = await chunkHashes(o, plan, prev.gainDb);
    const changed = plan.filter((c, i) => hashes![i] !== prev.chunks[i]!.hash);
    const changedSamples = changed.reduce((a, c) => a + (c.end - c.start), 0);
    if (changedSamples > REUSE_FRACTION * total) {
      fullReason = `the change touches ${changed.length} of ${plan.length} chunks (more than ${REUSE_FRACTION * 100}% of the soundtrack): the loudness is measured again`;
    } else {
      incremental = true;
      gainDb = prev.gainDb;
      measuredLufs = prev.measuredLufs;
    }
  }
  if (!incremental) {
    if (fullReason) ctx.log('full merge', { projectId: ctx.project.id, reason: fullReason });
    const m = measuredFirst ?? (await measureMixLoudness(o, { signal: op.signal, hopSec: op.hopSec }));
    if (m.lufs === null) throw new Error('the loudness of the mix could not be measured');
    measuredLufs = m.lufs;
    envelopes = m.envelopes;
    gainDb = loudnessGainDb(m.lufs, target);
    // at another gain every chunk is new (the gain is part of each hash): each hash is taken beside the encodes
    if (!(prev && Math.abs(prev.gainDb - gainDb) < 0.005 && hashes)) hashes = null;
  }
  const hs: Array<string | undefined> = hashes ?? new Array<string | undefined>(plan.length);

  // chunks to encode: those whose hash is new, or whose packets are gone from storage
  const dir = join(ctx.tmp, 'mix-chunks');
  mkdirSync(dir, { recursive: true });
  const files: string[] = new Array(plan.length);
  const chunks: MixState['chunks'] = new Array(plan.length);
  const todo: MixChunk[] = [];
  for (const c of plan) {
    const old = prev?.chunks[c.index];
    if (prev && prev.chunkFrames === chunkFrames && prev.totalSamples === total && old && old.hash === hs[c.index] && (await have(old.key))) {
      files[c.index] = await ctx.deps.storage.localFile(old.key);
      chunks[c.index] = old;
    } else {
      todo.push(c);
    }
  }
  // two at a time (the tools' CPU slots bound them with the rest of the pipeline)
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const c = todo[next++]!;
      if (op.signal.aborted) throw op.signal.reason ?? new Error('aborted');
      const f = join(dir, `${c.index}.aac`);
      // the hash (a read of the chunk's inputs) while the other worker's encoder runs
      hs[c.index] ??= (await chunkHashes(o, [c], gainDb))[0]!;
      const loudness = await encodeChunk(o, c, gainDb, f, { signal: op.signal });
      const k = key(ctx, `mix_chunks/${c.index}-${hs[c.index]}.aac`);
      await ctx.deps.storage.putFile(k, f, { contentType: 'audio/aac' });
      files[c.index] = f;
      chunks[c.index] = { hash: hs[c.index]!, key: k, loudness };
    }
  };
  await Promise.all([worker(), worker()]);

  const adts = join(dir, 'mix.aac');
  const packets = await concatChunks(files, adts);
  await adtsToM4a(adts, o.out, total, packets, { signal: op.signal });
  const state: MixState = { version: 1, totalSamples: total, chunkFrames, targetLufs: target, gainDb, measuredLufs, chunks };
  await saveJson(ctx, STATE, state);
  // the previous merge's chunks no chunk uses any more
  const used = new Set(chunks.map((c) => c.key));
  for (const c of prev?.chunks ?? []) if (!used.has(c.key)) await ctx.deps.storage.delete(c.key).catch(() => {});
  return {
    incremental, fullReason, gainDb, measuredLufs, encoded: todo.length, chunks: plan.length,
    output: combineLoudness(chunks.map((c) => c.loudness)), envelopes,
  };
}
