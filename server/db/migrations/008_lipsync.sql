-- Face check and lip-sync of a project (issue 14). Both are side tasks of the pipeline: they leave the
-- project's status alone and keep their own state here.
ALTER TABLE projects ADD COLUMN face_check jsonb;
-- null | processing | done | failed
ALTER TABLE projects ADD COLUMN lipsync_state text;
ALTER TABLE projects ADD COLUMN lipsync_progress integer NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN lipsync_error text;
ALTER TABLE projects ADD COLUMN lipsync_error_code text;
ALTER TABLE projects ADD COLUMN lipsync_engine text;
ALTER TABLE projects ADD COLUMN lipsync_multiple_speakers boolean NOT NULL DEFAULT false;
-- the project's generation (dub) the lip-sync was made from: a newer dub makes the result stale
ALTER TABLE projects ADD COLUMN lipsync_generation integer;
-- how many lip-sync runs were requested (the billing reference of each run)
ALTER TABLE projects ADD COLUMN lipsync_runs integer NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN lipsync_started_at timestamptz;
ALTER TABLE projects ADD COLUMN lipsync_finished_at timestamptz;
