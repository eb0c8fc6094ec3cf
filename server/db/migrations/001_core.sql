-- Core: identities (the built-in identity service), product users, subscriptions, teamspaces.
-- Written for PostgreSQL 15 (the server) and PGlite (PostgreSQL 18 in wasm): plain SQL both accept.

CREATE TABLE identities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  provider text NOT NULL,                 -- 'password' | 'oidc:<id>' | 'embed'
  subject text NOT NULL,                  -- e-mail for password, sub for oidc, shop|sub for embed
  email text NOT NULL,
  password_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider, subject)
);
CREATE INDEX identities_email_idx ON identities (email);

CREATE TABLE refresh_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  identity_id uuid NOT NULL REFERENCES identities(id) ON DELETE CASCADE,
  family_id uuid NOT NULL,
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  replaced_by uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);

CREATE TABLE auth_failures (
  id bigserial PRIMARY KEY,
  key text NOT NULL,                      -- 'ip:<addr>' or 'acct:<email>'
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_failures_key_at_idx ON auth_failures (key, at);

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  identity_id uuid NOT NULL UNIQUE REFERENCES identities(id) ON DELETE CASCADE,
  email text NOT NULL,
  email_type text NOT NULL DEFAULT 'password',
  is_superuser boolean NOT NULL DEFAULT false,
  is_active boolean NOT NULL DEFAULT true,
  picture text,
  referral_id text,
  customer_id text,
  onboarding jsonb NOT NULL DEFAULT '[]'::jsonb,
  email_consent boolean NOT NULL DEFAULT false,
  feature_groups jsonb NOT NULL DEFAULT '[]'::jsonb,
  pending_welcome_spaces jsonb NOT NULL DEFAULT '[]'::jsonb,
  api_credentials_generated boolean NOT NULL DEFAULT false,
  created_date timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_idx ON users (email);

CREATE TABLE subscriptions (
  id text PRIMARY KEY,
  user_id uuid NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
  tier text NOT NULL,
  status text NOT NULL,
  interval text NOT NULL DEFAULT 'month',
  price_id text,
  product_id text,
  current_period_end timestamptz,
  payments_collection_paused boolean NOT NULL DEFAULT false,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE spaces (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  color text NOT NULL DEFAULT 'midnight',
  owner_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  is_active boolean NOT NULL DEFAULT true,
  is_default boolean NOT NULL DEFAULT false,
  minutes_total numeric(12,3) NOT NULL DEFAULT 0,
  minutes_used numeric(12,3) NOT NULL DEFAULT 0,
  video_total integer NOT NULL DEFAULT 0,
  video_used integer NOT NULL DEFAULT 0,
  lipsync_free_minutes numeric(12,3) NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX spaces_owner_idx ON spaces (owner_id);
CREATE UNIQUE INDEX spaces_one_default_per_owner ON spaces (owner_id) WHERE is_default;

CREATE TABLE space_members (
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'editor')),
  joined_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (space_id, user_id)
);
CREATE INDEX space_members_user_idx ON space_members (user_id);

CREATE TABLE space_invites (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  email text NOT NULL,
  invited_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (space_id, email)
);
CREATE INDEX space_invites_email_idx ON space_invites (email);

CREATE TABLE app_settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL
);
