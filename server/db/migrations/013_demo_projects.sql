-- The demo project of a trial user in the demo_project group: one per user and target language (a second
-- click opens the same one). The project itself is an ordinary project of the user's default Teamspace,
-- dubbed at no cost (free_dubbing) right after its translation.
CREATE TABLE demo_projects (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  dst_lang text NOT NULL,
  project_id uuid NOT NULL UNIQUE REFERENCES projects(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, dst_lang)
);
