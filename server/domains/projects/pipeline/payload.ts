// The payload of a project job as it travels through a shared queue (Redis for BullMQ): {projectId, stage, run}, the
// names older processes wrote, so the jobs they queued still parse. Parsed, never cast, by the worker.
import * as v from 'valibot';
import type { JobCodec } from '../../../jobs/queue';
import { STAGES, type StageName } from './stages';

const JobPayload = v.object({
  projectId: v.pipe(v.string(), v.uuid('projectId is not a project id')),
  stage: v.picklist(STAGES, 'stage is not a pipeline stage'),
  /** How many times the job row has been queued (pipeline_jobs.queued_runs); absent in older payloads. */
  run: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
type ProjectJobPayload = v.InferOutput<typeof JobPayload>;

/** A payload that is not a job of this pipeline (another version's, or a corrupted one). */
export class InvalidJobError extends Error {
  override readonly name = 'InvalidJobError';
}

/** Parses a job payload from the queue; throws InvalidJobError naming what is wrong. */
export function parseJobData(raw: unknown): ProjectJobPayload {
  const r = v.safeParse(JobPayload, raw);
  if (r.success) return r.output;
  throw new InvalidJobError(`Invalid job payload ${JSON.stringify(raw)}: ${r.issues.map((i) => i.message).join('; ')}`);
}

/** The runtime's job (a subject and a stage) in the project payload, and back. */
export const PROJECT_JOBS: JobCodec<StageName> = {
  encode: (job) => ({ projectId: job.subject, stage: job.stage, ...(job.run !== undefined ? { run: job.run } : {}) }),
  decode: (raw) => {
    const p = parseJobData(raw);
    return { subject: p.projectId, stage: p.stage, run: p.run };
  },
};
