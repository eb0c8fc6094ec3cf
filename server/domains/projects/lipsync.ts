// Face check and lip-sync of a project (spec sections 6-7, issue 14): the rules before a job is queued.
// The jobs themselves are pipeline side tasks (server/domains/projects/stages/lipsync.ts).
import type { Project, RunLipsyncRequest } from '../../../contract/schemas/project';
import { isGenerating } from '../../../contract/statuses';
import { conflict } from '../../errors';
import { minutesNeeded } from '../../../contract/constants';
import * as ledger from '../billing/ledger';
import type { AppDeps } from '../../deps';
import type { UserRow } from '../../caller';
import * as repo from './repository';
import { loadProject, STILL_STOPPING } from './service';
import { stoppingJobs } from '../../jobs/repository';
import { oneProjectJson } from './shape';

/** POST /api/project/{id}/run_check_face_task: queues the face check (a second click joins the running one). */
export async function runCheckFaceTask(deps: AppDeps, user: UserRow, id: string): Promise<Project> {
  const { project } = await loadProject(deps, user, id);
  let queue = false;
  await deps.db.tx(async (t) => {
    const p = (await repo.lockProject(t, project.id))!;
    if (!p.original_video) throw conflict('The video is not ready yet: wait until it is uploaded and analysed');
    if ((p.face_check as { status?: string } | null)?.status === 'processing') return;
    await repo.startFaceCheck(t, p.id);
    queue = true;
  });
  if (queue) await deps.pipeline.enqueue(project.id, 'check_face');
  return oneProjectJson(deps, (await repo.findProject(deps.db, project.id))!);
}

/**
 * POST /api/project/{id}/run_lipsync_task: checks that a dub exists and that no lip-sync runs, records and
 * bills the run, and queues it. One job per project at a time; 402 when the minutes do not cover the video.
 */
export async function runLipsyncTask(deps: AppDeps, user: UserRow, id: string, body: RunLipsyncRequest): Promise<Project> {
  // The plan (Creator Pro and above) is checked before this by the lipsync gate of server/app/gates.ts.
  const { project } = await loadProject(deps, user, id);
  const engine = deps.engines.lipsync.id;
  await deps.db.tx(async (t) => {
    const p = (await repo.lockProject(t, project.id))!;
    if (p.lipsync_state === 'processing') throw conflict('Lip-sync is already running for this project');
    if ((await stoppingJobs(t, p.id)).length > 0) throw conflict(STILL_STOPPING);
    if (isGenerating(p.status) || p.status === 'voiceover_started' || p.status === 'merging_started') {
      throw conflict('The dubbed video is being generated: start lip-sync when it is ready');
    }
    if (!p.translated_video || !p.translated_audio) {
      throw conflict('Generate the dubbed video first: lip-sync moves the mouths to the dub');
    }
    const fc = p.face_check as { status?: string; lipsync_possible?: boolean; message?: string } | null;
    if (fc?.status === 'done' && fc.lipsync_possible === false) {
      throw conflict(fc.message ?? 'No face large enough for lip-sync was found in this video');
    }
    const run = await repo.startLipsync(t, p.id, { engine, multipleSpeakers: body.is_multiple_speakers });
    // Billed apart from the dub, in this transaction: the free lip-sync minutes first, then the plan's minutes
    // (only the free ones with is_free_lipsync). A run that fails is refunded (billing/listeners.ts).
    await ledger.debit(t, {
      spaceId: p.space_id,
      minutes: minutesNeeded(p.duration ?? 0),
      ref: ledger.lipsyncRef(p.id, run),
      from: body.is_free_lipsync ? ['lipsync_free'] : ['lipsync_free', 'minutes'],
      shortText: body.is_free_lipsync ? ledger.notEnoughFreeLipsyncText : undefined,
      projectId: p.id,
      userId: user.id,
      note: 'lip-sync',
    });
  });
  await deps.pipeline.enqueue(project.id, 'lipsync');
  return oneProjectJson(deps, (await repo.findProject(deps.db, project.id))!);
}
