-- A project's transcript revision, for the cached transcript reads (server/domains/transcript/cache.ts). Every
-- statement that writes segments moves it on, whoever runs it (the API, the pipeline, a script), in the transaction
-- of the write. A reader takes the revision before it reads the segments, so a transcript is never kept under a
-- revision newer than the rows it was made from. A project's own deletion does not count (its row is gone).
CREATE TABLE transcript_revs (
  project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  rev bigint NOT NULL
);

CREATE FUNCTION transcript_rev_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO transcript_revs (project_id, rev)
    SELECT DISTINCT c.project_id, 1 FROM changed c JOIN projects p ON p.id = c.project_id
  ON CONFLICT (project_id) DO UPDATE SET rev = transcript_revs.rev + 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER segments_rev_insert AFTER INSERT ON segments
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION transcript_rev_bump();
CREATE TRIGGER segments_rev_update AFTER UPDATE ON segments
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION transcript_rev_bump();
CREATE TRIGGER segments_rev_delete AFTER DELETE ON segments
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION transcript_rev_bump();
