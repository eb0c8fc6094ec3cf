-- Voice presets and clones of a Teamspace (spec sections 3 and 7), instant presets of a project's speaker, and the
-- voice tutorial flags of a user. Plain SQL accepted by PostgreSQL 15 and PGlite.

CREATE TABLE voice_presets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  label text NOT NULL,
  similarity_boost double precision NOT NULL DEFAULT 0.75 CHECK (similarity_boost BETWEEN 0 AND 1),
  stability double precision NOT NULL DEFAULT 0.5 CHECK (stability BETWEEN 0 AND 1),
  -- an instant preset of one project's speaker: not in the library, not counted against the plan's clones
  is_temporary boolean NOT NULL DEFAULT false,
  project_id uuid REFERENCES projects(id) ON DELETE SET NULL,
  speaker_id text,
  status text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'done', 'error')),
  error text,
  -- 'builtin' (voice matching: profile applied to the built-in voices) or 'elevenlabs' (engine_voice_id)
  engine text NOT NULL,
  engine_voice_id text,
  profile jsonb,
  gender text,
  -- the speech sample (storage key) the voice was made from
  sample_key text,
  sample_duration double precision,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX voice_presets_space_idx ON voice_presets (space_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX voice_presets_instant_idx ON voice_presets (project_id, speaker_id) WHERE is_temporary;

-- An instant preset goes with its project; a library preset made from a project outlives it.
CREATE FUNCTION voice_presets_of_deleted_project() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM voice_presets WHERE project_id = OLD.id AND is_temporary;
  RETURN OLD;
END
$$;
CREATE TRIGGER projects_voice_presets BEFORE DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION voice_presets_of_deleted_project();

-- A preset's files (sample, voice samples) are removed with it, however the row goes.
CREATE FUNCTION storage_garbage_of_voice_preset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO storage_garbage (kind, target) VALUES ('prefix', 'voice_presets/' || OLD.id::text || '/');
  RETURN OLD;
END
$$;
CREATE TRIGGER voice_presets_storage_garbage AFTER DELETE ON voice_presets
  FOR EACH ROW EXECUTE FUNCTION storage_garbage_of_voice_preset();

ALTER TABLE users ADD COLUMN voice_preset_tutorial_displayed boolean NOT NULL DEFAULT false;
ALTER TABLE users ADD COLUMN instant_voice_clone_tooltip_displayed boolean NOT NULL DEFAULT false;
