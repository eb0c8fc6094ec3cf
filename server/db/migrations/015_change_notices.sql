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

CREATE TRIGGER spaces_change_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON spaces
  FOR EACH STATEMENT EXECUTE FUNCTION change_notice();
CREATE TRIGGER space_members_change_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON space_members
  FOR EACH STATEMENT EXECUTE FUNCTION change_notice();
CREATE TRIGGER projects_change_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON projects
  FOR EACH STATEMENT EXECUTE FUNCTION change_notice();
CREATE TRIGGER speakers_change_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON speakers
  FOR EACH STATEMENT EXECUTE FUNCTION change_notice();
CREATE TRIGGER transcript_revs_change_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON transcript_revs
  FOR EACH STATEMENT EXECUTE FUNCTION change_notice();
CREATE TRIGGER glossaries_change_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON glossaries
  FOR EACH STATEMENT EXECUTE FUNCTION change_notice();
