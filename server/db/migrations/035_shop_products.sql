-- The product a project's video came from (issue 32, "From your store"): publishing the dub goes back to it.
CREATE TABLE shop_project_products (
  project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  domain text NOT NULL REFERENCES shops(domain) ON DELETE CASCADE,
  product_id text NOT NULL,
  product_title text NOT NULL,
  media_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX shop_project_products_product_idx ON shop_project_products (domain, product_id);
