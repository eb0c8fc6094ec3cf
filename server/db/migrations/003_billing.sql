-- Billing: the minutes ledger. Every grant, purchase, monthly refill, debit, refund and expiry is one row; the
-- balances are sums over it, never a number updated in place. Idempotent by (space, bucket, kind, ref).
-- Plain SQL accepted by PostgreSQL 15 and PGlite.

CREATE TABLE minutes_ledger (
  id bigserial PRIMARY KEY,
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  -- 'minutes': the dubbing minutes; 'lipsync_free': the free lip-sync minutes (their own balance)
  bucket text NOT NULL DEFAULT 'minutes' CHECK (bucket IN ('minutes', 'lipsync_free')),
  -- grant: trial or staff grant; purchase: a minute pack; refill: a plan's monthly minutes;
  -- debit: work charged; refund: a debit given back; expire: plan minutes that lapsed with the subscription
  kind text NOT NULL CHECK (kind IN ('grant', 'purchase', 'refill', 'debit', 'refund', 'expire')),
  -- signed: credits are positive, debits and expiries negative
  minutes numeric(12,3) NOT NULL,
  -- what caused it, unique per kind: 'project:<id>:gen:<n>', 'payment:<id>', 'refill:<sub>:<cycle>', 'trial', ...
  ref text NOT NULL,
  project_id uuid,
  user_id uuid,
  note text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (space_id, bucket, kind, ref),
  CHECK ((kind IN ('debit', 'expire') AND minutes <= 0) OR (kind NOT IN ('debit', 'expire') AND minutes >= 0))
);
CREATE INDEX minutes_ledger_space_idx ON minutes_ledger (space_id, bucket, created_at);
CREATE INDEX minutes_ledger_project_idx ON minutes_ledger (project_id) WHERE project_id IS NOT NULL;

-- The balances the spaces table held become opening rows of the ledger.
INSERT INTO minutes_ledger (space_id, bucket, kind, minutes, ref, note)
  SELECT id, 'minutes', 'grant', minutes_total, 'opening', 'opening balance' FROM spaces WHERE minutes_total > 0;
INSERT INTO minutes_ledger (space_id, bucket, kind, minutes, ref, note)
  SELECT id, 'minutes', 'debit', -minutes_used, 'opening', 'opening balance' FROM spaces WHERE minutes_used > 0;
INSERT INTO minutes_ledger (space_id, bucket, kind, minutes, ref, note)
  SELECT id, 'lipsync_free', 'grant', lipsync_free_minutes, 'opening', 'opening balance' FROM spaces WHERE lipsync_free_minutes > 0;

ALTER TABLE spaces DROP COLUMN minutes_total;
ALTER TABLE spaces DROP COLUMN minutes_used;
ALTER TABLE spaces DROP COLUMN lipsync_free_minutes;

-- A project's charges are ledger rows (ref project:<id>:gen:<n>); dubbed_generation is the last generation that
-- finished (a later generate charges only the segments changed since).
ALTER TABLE projects ADD COLUMN dubbed_generation integer;
-- Projects already charged under the old rule count as dubbed: their next generate charges only what changed.
UPDATE projects SET dubbed_generation = generation WHERE charged_at IS NOT NULL OR translated_video IS NOT NULL;
ALTER TABLE projects DROP COLUMN charged_minutes;
ALTER TABLE projects DROP COLUMN charged_at;

-- Subscription lifecycle fields: the start of the current period and the last monthly cycle credited.
ALTER TABLE subscriptions ADD COLUMN current_period_start timestamptz;
ALTER TABLE subscriptions ADD COLUMN provider text NOT NULL DEFAULT 'local';
ALTER TABLE subscriptions ADD COLUMN customer_id text;
ALTER TABLE subscriptions ADD COLUMN paused_at timestamptz;
ALTER TABLE subscriptions ADD COLUMN canceled_at timestamptz;
ALTER TABLE subscriptions ADD COLUMN ended_at timestamptz;
