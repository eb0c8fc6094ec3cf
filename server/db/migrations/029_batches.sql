-- Batches (issue 31): many videos dubbed into many languages in one go. A batch item is one project made by the
-- multi-language create (its other languages' projects are listed under it through copied_from).
CREATE TABLE IF NOT EXISTS batches (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  name text NOT NULL DEFAULT '',
  auto_generate boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'cancelled')),
  minutes_needed numeric NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX IF NOT EXISTS batches_space_idx ON batches (space_id, created_at DESC);

CREATE TABLE IF NOT EXISTS batch_items (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  batch_id uuid NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
  position integer NOT NULL,
  name text NOT NULL DEFAULT '',
  dst_langs jsonb NOT NULL DEFAULT '[]'::jsonb,
  -- the item as asked (to create it again on Retry)
  request jsonb NOT NULL DEFAULT '{}'::jsonb,
  project_id uuid REFERENCES projects(id) ON DELETE SET NULL,
  error text
);
CREATE INDEX IF NOT EXISTS batch_items_batch_idx ON batch_items (batch_id, position);
CREATE INDEX IF NOT EXISTS batch_items_project_idx ON batch_items (project_id) WHERE project_id IS NOT NULL;
