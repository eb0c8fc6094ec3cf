-- An upload keeps more than its file under uploads/<id>/ (the cover frame taken at upload): deleting its record
-- queues the whole folder for removal, not only the file.
CREATE OR REPLACE FUNCTION storage_garbage_of_media() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO storage_garbage (kind, target) VALUES ('key', OLD.storage_key);
  IF OLD.storage_key LIKE 'uploads/' || OLD.id::text || '/%' THEN
    INSERT INTO storage_garbage (kind, target) VALUES ('prefix', 'uploads/' || OLD.id::text || '/');
  END IF;
  IF OLD.via = 'tus' AND OLD.status = 'uploading' THEN
    INSERT INTO storage_garbage (kind, target) VALUES ('tus', OLD.id::text);
  END IF;
  RETURN OLD;
END
$$;
