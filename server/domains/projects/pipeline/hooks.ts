// What the job runtime (server/jobs) asks of a project: its scheduling group (its Teamspace, or its user) and the
// plan's jobs at once, its lock and existence, and what each stage's start, progress, end, cancellation and failure
// write (the state machine of stages.ts, through setStatus), which stage follows, and what a crash left to resume.
import { PROJECT_STATUSES, type ProjectStatus } from '../../../../contract/statuses';
import type { Config } from '../../../config';
import { EngineError } from '../../../engines/types';
import type { JobGroup, JobSubjects } from '../../../jobs/subjects';
import { isDiskFull, MediaError } from '../../../media/errors';
import type { Storage } from '../../../storage/types';
import type { Scope, StageRegistry } from './registry';
import * as repo from './repository';
import { ON_DONE, setProgress, setStatus, SIDE_TASKS, STAGE_STATUS, StageFailure, stageToResume, type StageName } from './stages';

/** Stages whose failure does not stop the pipeline (spec: voice_suggest_failed is not a failure status). */
export const NON_FATAL: ReadonlySet<StageName> = new Set<StageName>(['voice_suggest']);

const scopeOf = (g: JobGroup): Scope => ({ kind: g.kind === 'space' ? 'space' : 'user', id: g.id });

/** The hooks of the project pipeline: `registry` the domains' additions, `storage` where the projects' files are. */
export function projectJobHooks(o: {
  config: Pick<Config, 'api'>;
  storage: Storage;
  registry: Pick<StageRegistry, 'onFailed' | 'continueAfter' | 'jobsAtOnce'>;
}): JobSubjects<StageName> {
  const { registry } = o;
  // A non-fatal stage that failed (not cancelled) goes on to its next stage, as when it failed: a project left
  // there with no live job (the next stage's queueing lost) is resumed from it.
  const afterNonFatal = new Map<string, StageName | null>([...NON_FATAL].map((s) => [STAGE_STATUS[s]?.failed ?? '', ON_DONE[s]]));
  const resumable = PROJECT_STATUSES.filter((s) => stageToResume(s) !== null || afterNonFatal.get(s));
  return {
    async group(db, projectId) {
      const r = await repo.projectScope(db, projectId);
      if (!r) return null;
      if (r.space_id) return { kind: 'space', id: r.space_id, live: Number(r.live) };
      if (r.user_id) return { kind: 'user', id: r.user_id, live: Number(r.live) };
      return null;
    },
    limit: async (db, group) => (registry.jobsAtOnce ? registry.jobsAtOnce(db, scopeOf(group), o.config) : null),
    async admit(db, group, exceptJobId, staleSec) {
      const s = scopeOf(group);
      await repo.lockGroup(db, s.kind, s.id);
      return repo.runningInGroup(db, s.kind, s.id, exceptJobId, staleSec);
    },
    exists: (db, projectId) => repo.projectExists(db, projectId),
    lock: (db, projectId) => repo.lockProjectStatus(db, projectId),
    async started(db, projectId, stage) {
      const statuses = STAGE_STATUS[stage];
      if (statuses) await setStatus(db, projectId, statuses.started);
    },
    progress(stage) {
      const statuses = STAGE_STATUS[stage];
      return statuses ? (db, projectId, fraction) => setProgress(db, projectId, statuses, fraction) : null;
    },
    async done(db, projectId, stage) {
      const statuses = STAGE_STATUS[stage];
      if (statuses) await setStatus(db, projectId, statuses.done);
    },
    async next(db, projectId, stage) {
      return ON_DONE[stage] ?? (registry.continueAfter ? await registry.continueAfter(db, projectId, stage) : null);
    },
    async cancelled(db, projectId, stage, status) {
      // Cancelled but kept: it must not stay *_started (the cancel call has usually recorded this already).
      const statuses = STAGE_STATUS[stage];
      if (statuses && status === statuses.started) {
        await setStatus(db, projectId, statuses.failed, { error_code: 'cancelled', message: 'The processing was cancelled' });
      }
    },
    failed(projectId, stage, e) {
      const { status, message, code } = failureOf(stage, e);
      return {
        message,
        code,
        // A non-fatal stage records its failure and the pipeline goes on (voices can be chosen by hand).
        next: NON_FATAL.has(stage) ? ON_DONE[stage] : null,
        record: async (db) => {
          if (status) await setStatus(db, projectId, status, { error_code: code, message });
        },
      };
    },
    // A side task keeps its own state: its hook records the failure, and the cancellation (a stage with statuses
    // records its cancellation in the project's status).
    afterFailure: (stage, { cancelled }) => (cancelled && STAGE_STATUS[stage] ? null : (registry.onFailed?.[stage] ?? null)),
    async orphans(db, staleSec) {
      const out: Array<{ subject: string; stage: StageName; state: string }> = [];
      for (const p of await repo.orphanedProjects(db, resumable, staleSec)) {
        const stage = stageToResume(p.status as never) ?? (p.error_code === 'cancelled' ? null : (afterNonFatal.get(p.status) ?? null));
        if (stage) out.push({ subject: p.id, stage, state: p.status });
      }
      return out;
    },
    async afterRun(db, projectId) {
      // A project deleted while its stage ran (by itself, its space or its user): what the stage wrote after
      // the deletion's cleanup is removed here, so nothing is left behind.
      if (!(await repo.projectExists(db, projectId).catch(() => true))) {
        await o.storage.deletePrefix(`projects/${projectId}/`).catch(() => {});
      }
    },
  };
}

/** Maps an error to the project's failure status and a message a person can read. */
export function failureOf(stage: StageName, e: unknown): { status: ProjectStatus | null; message: string; code?: string } {
  const fallback = STAGE_STATUS[stage]?.failed ?? null;
  if (e instanceof StageFailure) return { status: e.status, message: e.message, code: e.code };
  if (e instanceof EngineError && SIDE_TASKS.has(stage)) return { status: fallback, message: errorText(e), code: e.code };
  if (isDiskFull(e)) {
    return {
      status: fallback,
      message: 'The server ran out of disk space while writing the result. Nothing was replaced: the previous result is still available. Try again later.',
      code: 'disk_full',
    };
  }
  const message = errorText(e);
  if (e instanceof MediaError) {
    if (e.code === 'no_audio') return { status: 'no_audio', message: 'The video has no sound', code: 'no_audio' };
    if (e.code === 'forbidden_link') return { status: 'forbidden_link', message, code: 'forbidden_link' };
    if (e.code === 'corrupt' && stage === 'ingest') return { status: 'upload_failed', message, code: 'corrupt' };
    return { status: fallback, message, code: e.code };
  }
  return { status: fallback, message };
}

function errorText(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  const t = m.trim() || 'Unknown error';
  return t.length > 1000 ? t.slice(0, 1000) + '…' : t;
}
