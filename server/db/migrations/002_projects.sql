-- Projects, transcript segments, speakers, uploads, pipeline jobs and the generation cache.
-- Plain SQL accepted by PostgreSQL 15 and PGlite.

-- Uploaded files (multipart or tus): videos, audio, subtitle files.
CREATE TABLE media_uploads (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid REFERENCES spaces(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind text NOT NULL DEFAULT 'video' CHECK (kind IN ('video', 'audio', 'srt')),
  filename text NOT NULL DEFAULT '',
  content_type text,
  size_bytes bigint NOT NULL DEFAULT 0,
  storage_key text NOT NULL,
  status text NOT NULL DEFAULT 'uploading' CHECK (status IN ('uploading', 'uploaded', 'failed')),
  error text,
  via text NOT NULL DEFAULT 'multipart' CHECK (via IN ('multipart', 'tus')),
  probe jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX media_uploads_user_idx ON media_uploads (user_id, created_at);

-- Minimal glossary table (terms: [{source, target}]); a glossary domain may extend it.
CREATE TABLE glossaries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  name text NOT NULL DEFAULT '',
  src_lang text NOT NULL,
  dst_lang text NOT NULL,
  terms jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX glossaries_space_idx ON glossaries (space_id, src_lang, dst_lang);

CREATE TABLE projects (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  name text NOT NULL,
  folder_id text,
  status text NOT NULL DEFAULT 'created',
  progress integer NOT NULL DEFAULT 1,
  error_code text,
  error_message text,
  prompt text,
  src_lang text NOT NULL,
  dst_lang text NOT NULL,
  -- input
  media_id uuid REFERENCES media_uploads(id) ON DELETE SET NULL,
  link text,
  num_speakers integer,
  src_srt_media_id uuid REFERENCES media_uploads(id) ON DELETE SET NULL,
  dst_srt_media_id uuid REFERENCES media_uploads(id) ON DELETE SET NULL,
  glossary_id uuid REFERENCES glossaries(id) ON DELETE SET NULL,
  copied_from uuid,
  free_dubbing boolean NOT NULL DEFAULT false,
  tts_provider text,
  -- facts about the input (ffprobe)
  duration double precision,
  media_info jsonb,
  -- artifacts (storage keys)
  original_video text,
  cover text,
  translated_audio text,
  translated_video text,
  voiceover text,
  translation_srt_path text,
  translation_vtt_path text,
  lipsync_result_path text,
  subtitles_burn_result_path text,
  subtitles_lipsync_burn_result_path text,
  subtitles_banner_displayed jsonb NOT NULL DEFAULT '[]'::jsonb,
  -- burned-subtitles side task: null | processing | done | failed
  subtitles_burn_state text,
  subtitles_burn_video_type text,
  subtitles_burn_error text,
  -- billing: minutes charged once for this project's material
  charged_minutes integer,
  charged_at timestamptz,
  generation integer NOT NULL DEFAULT 0,
  created_date timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_space_created_idx ON projects (space_id, created_date DESC, id DESC);
CREATE INDEX projects_status_idx ON projects (status);

CREATE TABLE speakers (
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id text NOT NULL,
  name text NOT NULL,
  gender text,
  pitch_hz double precision,
  voice_id text,
  voice_locked boolean NOT NULL DEFAULT false,
  position integer NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, id)
);

CREATE TABLE segments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  start_sec double precision NOT NULL,
  end_sec double precision NOT NULL,
  speaker text NOT NULL DEFAULT '',
  src_text text NOT NULL DEFAULT '',
  dst_text text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'processing' CHECK (status IN ('done', 'error', 'processing', 'updated')),
  words jsonb,
  -- result of the last voiceover for this segment
  speed_factor double precision,
  overflow_sec double precision,
  audio_hash text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (end_sec >= start_sec)
);
CREATE INDEX segments_project_idx ON segments (project_id, start_sec);

-- Synthesised segment clips by content hash (text, voice, settings, slot): reused on the next generate.
CREATE TABLE generation_hashes (
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  hash text NOT NULL,
  storage_key text NOT NULL,
  duration_sec double precision NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, hash)
);

-- One row per queued/running stage of a project: id '<projectId>-<stage>'. Heartbeats and the start-up
-- sweep use it to requeue stages whose worker died.
CREATE TABLE pipeline_jobs (
  id text PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  stage text NOT NULL,
  state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  owner text,
  attempts integer NOT NULL DEFAULT 0,
  cancel_requested boolean NOT NULL DEFAULT false,
  error text,
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pipeline_jobs_live_idx ON pipeline_jobs (state, heartbeat_at);
CREATE INDEX pipeline_jobs_project_idx ON pipeline_jobs (project_id);

CREATE TABLE project_feedback (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid REFERENCES projects(id) ON DELETE SET NULL,
  user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  comment text NOT NULL DEFAULT '',
  options jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX project_feedback_created_idx ON project_feedback (created_at);
