-- The studio (issue 15): a project created in several target languages keeps the languages whose projects
-- are still to be made; they are made, sharing its analysis, once its speakers are known. Copies (and these
-- language projects) are listed under their source.
ALTER TABLE projects ADD COLUMN pending_dst_langs jsonb NOT NULL DEFAULT '[]'::jsonb;
CREATE INDEX projects_copied_from_idx ON projects (copied_from) WHERE copied_from IS NOT NULL;
