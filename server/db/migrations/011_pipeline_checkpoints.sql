-- Finished chunks of a long stage (transcription): after a restart the stage goes on from the last
-- finished chunk. A chunk counts only while its fingerprint (engine, language, audio, regions) matches;
-- the rows go when the stage has written its result, or with the project.
CREATE TABLE pipeline_checkpoints (
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  stage text NOT NULL,
  chunk integer NOT NULL CHECK (chunk >= 0),
  fingerprint text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, stage, chunk)
);
