-- Billing through the platform in the embedded build (issue 32 part 5). A shop Teamspace buys a plan with the
-- platform's appSubscriptionCreate; the plan is the owner's row of `subscriptions` (provider 'shop', like
-- Stripe's), and its monthly minutes go to the space named here (null: the owner's default space, as before).
ALTER TABLE subscriptions ADD COLUMN space_id uuid REFERENCES spaces(id) ON DELETE SET NULL;

-- Each app subscription created for a shop: the plan bought, its lines and its status on the platform.
CREATE TABLE shop_subscriptions (
  id text PRIMARY KEY,                      -- gid://shopify/AppSubscription/<n>
  domain text NOT NULL,
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  user_id uuid NOT NULL,                    -- the Teamspace owner whose plan it is
  created_by uuid,
  tier text NOT NULL,
  status text NOT NULL,                     -- AppSubscriptionStatus: PENDING, ACTIVE, DECLINED, CANCELLED, EXPIRED, FROZEN, ACCEPTED
  amount numeric(12, 2) NOT NULL,
  currency text NOT NULL,
  recurring_line_id text,
  usage_line_id text,
  capped_amount numeric(12, 2),
  minute_price numeric(12, 4) NOT NULL,
  activated_at timestamptz,
  ended_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX shop_subscriptions_space_idx ON shop_subscriptions (space_id, created_at DESC);

-- Each usage charge for extra minutes (appUsageRecordCreate), once per idempotency key; its minutes are the
-- ledger row 'purchase' with ref shop-usage:<key>, written in the same transaction.
CREATE TABLE shop_usage_charges (
  idempotency_key text PRIMARY KEY,
  subscription_id text NOT NULL REFERENCES shop_subscriptions(id) ON DELETE CASCADE,
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  user_id uuid,
  minutes integer NOT NULL,
  amount numeric(12, 2) NOT NULL,
  currency text NOT NULL,
  usage_record_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
