-- Change notices for the reads a process keeps (server/db/changes.ts, server/db/kept-reads.ts): every statement that
-- writes one of the tables those reads depend on (a project's access facts and transcript version, a list page's
-- version) sends NOTIFY ds_changes, delivered to the listening processes when its transaction commits, and not at
-- all when it rolls back. The payload names the table; equal notices of one transaction arrive once.
CREATE FUNCTION change_notice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('ds_changes', TG_TABLE_NAME);
  RETURN NULL;
END
$$;

-- A reader of these tables that is kept (kept-reads.ts) must have its tables here.
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['spaces', 'space_members', 'projects', 'speakers', 'transcript_revs', 'glossaries'] LOOP
    EXECUTE format(
      'CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION change_notice()',
      t || '_change_notice', t);
  END LOOP;
END
$$;
