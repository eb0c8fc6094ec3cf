// The plan's jobs at once per Teamspace, as the pipeline's scheduler asks for it (server/jobs/scheduler.ts,
// registered through the project stages): the space owner's plan (entitlements' concurrentJobs, or API_CONCURRENT_JOBS
// for the tier when set); staff are not limited. A project without a space counts against its user's plan.
import type { Config } from '../../config';
import type { Db } from '../../db/index';
import { userEntitlements } from './entitlements';
import { planOwner } from './repository';

export async function jobsAtOnce(db: Db, scope: { kind: 'space' | 'user'; id: string }, config: Pick<Config, 'api'> | null): Promise<number | null> {
  const owner = await planOwner(db, scope);
  if (!owner || owner.is_superuser) return null;
  const e = await userEntitlements(db, owner.id);
  const configured = config?.api.concurrentJobs[e.effectiveTier];
  const limit = configured !== undefined ? configured : e.limits.concurrentJobs;
  return limit === null ? null : Math.max(1, limit);
}
