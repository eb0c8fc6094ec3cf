-- The customer's words (issue 33): a project's word list for speech recognition (product and place names the
-- recognizer should know), pasted by the user; given to the recognizer with the project's dictionary terms.
CREATE TABLE IF NOT EXISTS project_asr_words (
  project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  words jsonb NOT NULL DEFAULT '[]'::jsonb,
  updated_at timestamptz NOT NULL DEFAULT now()
);
