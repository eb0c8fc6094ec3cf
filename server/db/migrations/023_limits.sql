-- Jobs at once (issue 26): a call that starts a job claims a slot first, in a short transaction that locks the
-- user's row and counts the running jobs and the other claims; the claim is dropped once the call has answered
-- (its job, if any, is then counted as running). Claims older than a few minutes (a process that died mid-call)
-- no longer count.
CREATE TABLE IF NOT EXISTS job_start_claims (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS job_start_claims_user ON job_start_claims (user_id, at);
