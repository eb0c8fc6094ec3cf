// The caller as the domains see it: how they signed in (Identity) and their product account (UserRow).

export interface Identity {
  identityId: string;
  email: string;
  provider: string;
  /** How the caller authenticated. */
  via: 'access_token' | 'embed_token' | 'api_key';
  /** For embedded sessions: the shop's URL (dest) and its user id (sub). */
  shop?: string;
  /** For API keys: the key's id. */
  apiKeyId?: string;
}

export interface UserRow {
  id: string;
  identity_id: string;
  email: string;
  email_type: string;
  is_superuser: boolean;
  is_active: boolean;
  picture: string | null;
  referral_id: string | null;
  customer_id: string | null;
  onboarding: string[];
  email_consent: boolean;
  feature_groups: { name: string; option: { id: string } }[];
  pending_welcome_spaces: string[];
  api_credentials_generated: boolean;
  created_date: Date | string;
}
