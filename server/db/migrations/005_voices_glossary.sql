-- Dictionary (glossaries): entries with flags, per-segment term checks. (Voice presets: not in this migration yet.)
-- Plain SQL accepted by PostgreSQL 15 and PGlite.

-- Glossaries keep their entries in `terms` (jsonb array of {source, target, do_not_translate, case_sensitive,
-- pronunciation}); who made them and when they last changed.
ALTER TABLE glossaries ADD COLUMN created_by uuid REFERENCES users(id) ON DELETE SET NULL;
ALTER TABLE glossaries ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX glossaries_space_created_idx ON glossaries (space_id, created_at DESC, id DESC);

-- After translation: which dictionary terms each segment was expected to carry and which were found
-- ({"expected": [...], "found": [...], "missing": [...]}); null when the project has no dictionary.
ALTER TABLE segments ADD COLUMN glossary_check jsonb;
