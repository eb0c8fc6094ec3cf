-- Shops of the embedded app (issue 32): each shop is a Teamspace; its Admin API offline token is kept sealed
-- (libsodium secretbox, key from configuration), never in clear.
CREATE TABLE shops (
  domain text PRIMARY KEY,
  space_id uuid REFERENCES spaces(id) ON DELETE SET NULL,
  name text NOT NULL,
  token_box text,
  token_scopes text,
  installed boolean NOT NULL DEFAULT true,
  uninstalled_at timestamptz,
  redacted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX shops_space_idx ON shops (space_id);

-- Webhook deliveries already handled (the platform retries and may deliver twice).
CREATE TABLE shop_webhooks (
  webhook_id text PRIMARY KEY,
  domain text NOT NULL,
  topic text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
