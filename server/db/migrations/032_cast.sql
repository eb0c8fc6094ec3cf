-- The cast of a Teamspace (issue 31, part 5): people who speak in its videos, each with a measured voice profile
-- and the voice chosen for them per target language; a project's speaker recognised as one of them (the undo).
-- Plain SQL accepted by PostgreSQL 15 and PGlite.

CREATE TABLE cast_members (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  profile jsonb NOT NULL,
  gender text,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cast_members_space_idx ON cast_members (space_id, created_at, id);

CREATE TABLE cast_voices (
  member_id uuid NOT NULL REFERENCES cast_members(id) ON DELETE CASCADE,
  lang text NOT NULL,
  voice_id text NOT NULL,
  PRIMARY KEY (member_id, lang)
);

-- A speaker the voice_suggest stage named and voiced from the cast, with what it had before (for the undo).
CREATE TABLE cast_recognitions (
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  speaker_id text NOT NULL,
  member_id uuid REFERENCES cast_members(id) ON DELETE SET NULL,
  member_name text NOT NULL,
  distance double precision NOT NULL,
  previous_name text NOT NULL,
  previous_voice_id text,
  -- undone in the editor: the stage does not recognise this speaker again
  undone_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, speaker_id)
);
