-- First-run experience, support and staff tools: support chat threads, surveys and their answers, e-mail
-- change confirmations; indexes for the admin lists. Plain SQL accepted by PostgreSQL 15 and PGlite.

-- One support conversation per user; staff answer in the admin inbox.
CREATE TABLE support_threads (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
  -- 'open': the user wrote last and waits; 'answered': staff wrote last.
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'answered')),
  last_message_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  user_read_at timestamptz,
  staff_read_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX support_threads_last_idx ON support_threads (last_message_at DESC, id);

CREATE TABLE support_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  thread_id uuid NOT NULL REFERENCES support_threads(id) ON DELETE CASCADE,
  author_id uuid REFERENCES users(id) ON DELETE SET NULL,
  from_staff boolean NOT NULL DEFAULT false,
  body text NOT NULL,
  -- Where the user was when writing (path inside the app) and the project open then.
  page text,
  project_id uuid REFERENCES projects(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX support_messages_thread_idx ON support_messages (thread_id, created_at, id);

-- Surveys shown to users (settings.surveys carries the active ones a user has not answered or rejected).
CREATE TABLE surveys (
  id text PRIMARY KEY,
  title text NOT NULL,
  questions jsonb NOT NULL DEFAULT '[]'::jsonb,
  -- Staff switch a survey on in the admin Survey page.
  active boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO surveys (id, title, questions) VALUES
  ('customer_survey_v1', 'How did you hear about us?',
   '["Search engine", "YouTube", "Social media", "A friend or colleague", "An article or blog", "Other"]'::jsonb);

CREATE TABLE survey_responses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  survey_id text NOT NULL REFERENCES surveys(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('answered', 'rejected')),
  answers jsonb NOT NULL DEFAULT '[]'::jsonb,
  comment text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (survey_id, user_id)
);
CREATE INDEX survey_responses_created_idx ON survey_responses (created_at DESC, id);

-- E-mail changes waiting for the link sent to the new address.
CREATE TABLE email_changes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  new_email text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  confirmed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_changes_user_idx ON email_changes (user_id);

CREATE INDEX project_feedback_created_id_idx ON project_feedback (created_at DESC, id);
CREATE INDEX users_created_date_idx ON users (created_date DESC, id);
