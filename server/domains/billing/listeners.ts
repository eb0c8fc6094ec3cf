// What billing does when a project's status changes (registered with the pipeline's onStatusChange, run in the
// transaction of the change): a generation that fails or is cancelled gets its minutes back; a finished one
// becomes the base of the next re-dub's charge.
import type { SideTaskFailure, StatusChange } from '../projects/pipeline/stages';
import type { Db } from '../../db/index';
import * as ledger from './ledger';
import { markGenerationDubbed, projectBilling } from './repository';

const GENERATION_FAILED = new Set(['voiceover_failed', 'merging_failed']);

export async function billingOnStatus(db: Db, ch: StatusChange): Promise<void> {
  if (!GENERATION_FAILED.has(ch.status) && ch.status !== 'merging_done') return;
  const p = await projectBilling(db, ch.projectId);
  if (!p) return;
  if (ch.status === 'merging_done') {
    await markGenerationDubbed(db, ch.projectId);
    return;
  }
  await ledger.refund(db, p.space_id, ledger.generationRef(ch.projectId, p.generation), 'generation failed: minutes given back');
}

/** A lip-sync run that failed or was cancelled gets its minutes back (free lip-sync minutes to their bucket). */
export async function billingOnSideTaskFailure(db: Db, f: SideTaskFailure): Promise<void> {
  if (f.stage !== 'lipsync') return;
  const p = await projectBilling(db, f.projectId);
  if (!p || !p.lipsync_runs) return;
  await ledger.refund(db, p.space_id, ledger.lipsyncRef(f.projectId, Number(p.lipsync_runs)), 'lip-sync failed: minutes given back');
}
