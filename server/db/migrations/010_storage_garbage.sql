-- Stored objects whose rows are gone. A trigger records them in the transaction that deletes the row, however
-- the row goes (its own delete, its Teamspace's or its user's cascade, the 60-day retention of uploads), so the
-- files can never outlive the data; the cleanup (server/domains/retention) removes them after the commit and
-- retries failures from the periodic sweep.
CREATE TABLE storage_garbage (
  id bigserial PRIMARY KEY,
  -- 'prefix': every object under `target` (ends with '/'); 'key': one object; 'tus': an unfinished tus upload id
  kind text NOT NULL CHECK (kind IN ('prefix', 'key', 'tus')),
  target text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION storage_garbage_of_project() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO storage_garbage (kind, target) VALUES ('prefix', 'projects/' || OLD.id::text || '/');
  RETURN OLD;
END
$$;

CREATE TRIGGER projects_storage_garbage AFTER DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION storage_garbage_of_project();

CREATE FUNCTION storage_garbage_of_media() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO storage_garbage (kind, target) VALUES ('key', OLD.storage_key);
  IF OLD.via = 'tus' AND OLD.status = 'uploading' THEN
    INSERT INTO storage_garbage (kind, target) VALUES ('tus', OLD.id::text);
  END IF;
  RETURN OLD;
END
$$;

CREATE TRIGGER media_uploads_storage_garbage AFTER DELETE ON media_uploads
  FOR EACH ROW EXECUTE FUNCTION storage_garbage_of_media();

-- The 60-day retention of upload records scans by age.
CREATE INDEX media_uploads_created_idx ON media_uploads (created_at);
