-- A transcript in its reading order (start, end, creation, id): the whole-transcript read goes in pages from where
-- the last one ended (server/domains/projects/transcript/repository.ts, segmentsOf), and each page is a range of
-- this index. It serves every query the old (project_id, start_sec) index did.
CREATE INDEX segments_order_idx ON segments (project_id, start_sec, end_sec, created_at, id);
DROP INDEX segments_project_idx;
