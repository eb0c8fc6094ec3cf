// A subscription row as the billing repository reads it: its own file, so what only names the type (the users'
// account cache) does not import the repository that imports it back.
export interface SubscriptionRow {
  id: string;
  user_id: string;
  tier: string;
  status: string;
  interval: string;
  price_id: string | null;
  product_id: string | null;
  current_period_end: Date | string | null;
  payments_collection_paused: boolean;
  cancel_at_period_end: boolean;
  created_at?: Date | string;
  updated_at?: Date | string;
  provider?: string;
  payment_issue?: string | null;
}
