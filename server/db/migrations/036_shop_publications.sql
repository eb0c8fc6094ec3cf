-- Dubbed videos published back to the shop's products (issue 32, part 4): one row per product and language (one
-- dub per language on a product). media_id is the platform's media of the latest publication; stale_media_ids are
-- earlier ones, deleted from the product once the new one is READY (the earlier dub stays while the new one fails).
CREATE TABLE shop_publications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  domain text NOT NULL REFERENCES shops(domain) ON DELETE CASCADE,
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  project_id uuid REFERENCES projects(id) ON DELETE SET NULL,
  root_project_id uuid REFERENCES projects(id) ON DELETE CASCADE,
  product_id text NOT NULL,
  product_title text NOT NULL DEFAULT '',
  language text NOT NULL,
  state text NOT NULL CHECK (state IN ('uploading', 'processing', 'ready', 'failed')),
  error text,
  media_id text,
  stale_media_ids jsonb NOT NULL DEFAULT '[]',
  user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (domain, product_id, language)
);
CREATE INDEX shop_publications_root_idx ON shop_publications (root_project_id);
