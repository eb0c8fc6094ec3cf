// Orchestration-test helpers: tiny stage handlers (they only record what the runtime gives them; the
// engines are not involved) and project rows made directly in the database.
import type { StageContext, StageHandler } from '../../../server/domains/projects/pipeline/registry';
import { STAGES, type StageName } from '../../../server/domains/projects/pipeline/stages';
import type { Harness } from '../../server/harness';
import { makeUser } from '../../server/spaces/spaces-fixtures';

export interface Recorder {
  calls: Array<{ projectId: string; stage: StageName; statusAtStart: string; progressAtStart: number }>;
  running: number;
  maxRunning: number;
}

export function recorder(): Recorder {
  return { calls: [], running: 0, maxRunning: 0 };
}

/**
 * Handlers that record each call (with the status the runtime wrote before calling), wait `delayMs`,
 * and run `override[stage]` when given.
 */
export function recordingHandlers(
  h: Harness,
  rec: Recorder,
  o: { delayMs?: number; override?: Partial<Record<StageName, (ctx: StageContext) => Promise<void>>> } = {},
): Record<StageName, StageHandler> {
  const make = (stage: StageName): StageHandler => async (ctx) => {
    const row = await h.deps.db.one<{ status: string; progress: number }>('SELECT status, progress FROM projects WHERE id = $1', [ctx.projectId]);
    rec.calls.push({ projectId: ctx.projectId, stage, statusAtStart: row.status, progressAtStart: row.progress });
    rec.running++;
    rec.maxRunning = Math.max(rec.maxRunning, rec.running);
    try {
      if (o.delayMs) await sleep(o.delayMs, ctx.signal);
      await o.override?.[stage]?.(ctx);
    } finally {
      rec.running--;
    }
  };
  return Object.fromEntries(STAGES.map((s) => [s, make(s)])) as Record<StageName, StageHandler>;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new DOMException('aborted', 'AbortError'));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new DOMException('aborted', 'AbortError'));
    }, { once: true });
  });
}

/** Resolves when the signal aborts (a stage that would run forever). */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new DOMException('aborted', 'AbortError'));
    signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true });
  });
}

let n = 0;
/** A space and a project row in `status` (no upload needed: the handlers are fakes). */
export async function projectRow(h: Harness, status = 'created'): Promise<string> {
  n++;
  const u = await makeUser(h, `orch${n}-${Date.now()}@example.com`);
  const r = await h.deps.db.one<{ id: string }>(
    `INSERT INTO projects (space_id, user_id, name, src_lang, dst_lang, status) VALUES ($1, $2, 'P', 'en', 'es', $3) RETURNING id`,
    [u.defaultSpaceId, u.id, status],
  );
  return r.id;
}

export async function projectState(h: Harness, id: string) {
  return h.deps.db.maybeOne<{ status: string; progress: number; error_code: string | null; error_message: string | null }>(
    'SELECT status, progress, error_code, error_message FROM projects WHERE id = $1',
    [id],
  );
}

export async function jobRows(h: Harness, id: string) {
  return h.deps.db.query<{ stage: string; state: string; error: string | null; attempts: number }>(
    'SELECT stage, state, error, attempts FROM pipeline_jobs WHERE project_id = $1 ORDER BY created_at, stage',
    [id],
  );
}

export async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const t0 = Date.now();
  let last: T | undefined;
  while (Date.now() - t0 < timeoutMs) {
    last = await fn();
    if (ok(last)) return last;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
}
