-- Each time a job row is queued it gets a new run number (queue id `<projectId>-<stage>#<queued_runs>`): a job
-- queued again while the queue still holds its previous, not-yet-claimed entry (cancelled, then queued again before
-- that entry was taken) is a new entry, never swallowed as a duplicate of the old one.
ALTER TABLE pipeline_jobs ADD COLUMN IF NOT EXISTS queued_runs integer NOT NULL DEFAULT 0;
-- When the row was last queued (the owner's heartbeat keeps heartbeat_at fresh while it waits in memory): a row of
-- the in-process queue still unclaimed a while after it was queued, and not held by that queue, is pushed again.
ALTER TABLE pipeline_jobs ADD COLUMN IF NOT EXISTS queued_at timestamptz NOT NULL DEFAULT now();
