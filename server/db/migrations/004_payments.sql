-- Payments: the product catalogue of the active provider (local or Stripe), processed webhook events, checkout
-- sessions and completed payments. Minutes stay in minutes_ledger; subscriptions stay in subscriptions.
-- Plain SQL accepted by PostgreSQL 15 and PGlite.

-- Plans and the minute pack as the pricing page sells them. For Stripe a copy of the configured prices and their
-- products (refreshed from the API); for the local provider the built-in catalogue.
CREATE TABLE payment_products (
  provider text NOT NULL CHECK (provider IN ('local', 'stripe')),
  id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('plan', 'credits')),
  -- the plan tier (starter ... custom); null for the minute pack
  tier text,
  -- 'enterprise' for enterprise plans (spec: an enterprise subscription needs exactly one matching), the tier
  -- otherwise, 'credits' for the minute pack
  category text NOT NULL,
  name text NOT NULL,
  is_archived boolean NOT NULL DEFAULT false,
  position integer NOT NULL DEFAULT 0,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, id)
);
CREATE INDEX payment_products_category_idx ON payment_products (category);

CREATE TABLE payment_prices (
  provider text NOT NULL CHECK (provider IN ('local', 'stripe')),
  id text NOT NULL,
  product_id text NOT NULL,
  -- cents; null when the provider sells nothing for money (local)
  unit_amount integer,
  currency text NOT NULL DEFAULT 'usd',
  -- month or year for plans; null for one-time prices (the minute pack)
  interval text CHECK (interval IS NULL OR interval IN ('month', 'year')),
  is_archived boolean NOT NULL DEFAULT false,
  -- offered on the pricing page (a configured price); false for prices only known from a subscription
  is_current boolean NOT NULL DEFAULT true,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, id)
);

-- Webhook events applied, by id: a replay finds its id here and changes nothing.
CREATE TABLE payment_events (
  provider text NOT NULL,
  id text NOT NULL,
  type text NOT NULL,
  -- when the provider created the event
  created_at timestamptz,
  processed_at timestamptz NOT NULL DEFAULT now(),
  -- what it did: applied, ignored, unknown_customer, stale ...
  outcome text NOT NULL,
  PRIMARY KEY (provider, id)
);

-- Checkout sessions opened for users: a second click while one is open returns the same one; completion marks it.
CREATE TABLE checkout_sessions (
  provider text NOT NULL,
  id text NOT NULL,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  space_id uuid REFERENCES spaces(id) ON DELETE SET NULL,
  mode text NOT NULL CHECK (mode IN ('subscription', 'payment')),
  price_id text NOT NULL,
  quantity integer NOT NULL CHECK (quantity > 0),
  url text NOT NULL,
  success_url text NOT NULL,
  cancel_url text NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'complete', 'expired')),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  completed_at timestamptz,
  PRIMARY KEY (provider, id)
);
CREATE INDEX checkout_sessions_user_idx ON checkout_sessions (user_id, status, created_at);

-- Completed payments (Stripe invoices and minute purchases, local grants): the account page's latest payment.
CREATE TABLE payments (
  id bigserial PRIMARY KEY,
  provider text NOT NULL,
  -- the provider's reference (invoice id, checkout session id, local grant id): one row each
  ref text NOT NULL,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('subscription', 'credits')),
  amount integer,
  currency text,
  -- [{item_name, quantity}]
  items jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (provider, ref)
);
CREATE INDEX payments_user_idx ON payments (user_id, created_at DESC);

-- A payment problem of the subscription (payment_failed, expired_card, card_expiring), cleared by the next payment.
ALTER TABLE subscriptions ADD COLUMN payment_issue text;

-- Local subscriptions name their catalogue product and price (enterprise matching needs the product).
UPDATE subscriptions SET product_id = 'prod_local_' || tier
  WHERE provider = 'local' AND product_id IS NULL AND tier <> 'free' AND id NOT LIKE '%free\_sub%';
UPDATE subscriptions SET price_id = 'price_local_' || tier || '_' || interval
  WHERE provider = 'local' AND price_id IS NULL AND tier <> 'free' AND id NOT LIKE '%free\_sub%';
