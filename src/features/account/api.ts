// The current user: GET/PATCH/DELETE /api/users/current and account creation (POST /api/users).
import useSWR, { mutate } from 'swr';
import type { PlanTier } from '../../../contract/features';
import type { User } from '../../../contract/schemas/user';
import { request, type ApiError } from '../../lib/http';

export const CURRENT_USER_KEY = '/api/users/current';

/** The signed-in user's account; pass enabled=false to skip (signed out). */
export function useCurrentUser(enabled = true) {
  return useSWR<User, ApiError>(enabled ? CURRENT_USER_KEY : null);
}

export interface CreateAccountBody {
  email: string;
  referral_id: string | null;
  token: string | null;
}

/** Creates the product account of a new identity (and its default Teamspace). 409 when it exists. */
export function createAccount(body: CreateAccountBody): Promise<User> {
  return request((c) => c.post('users', { json: body, context: { spaceId: false } }).json<User>());
}

export interface UserPatch {
  onboarding?: string[];
  email_consent?: boolean;
  welcome_seen_space_id?: string;
}

export async function updateCurrentUser(patch: UserPatch): Promise<User> {
  const user = await request((c) => c.patch('users/current', { json: patch }).json<User>());
  await mutate(CURRENT_USER_KEY, user, { revalidate: false });
  return user;
}

export async function deleteCurrentUser(): Promise<void> {
  await request((c) => c.delete('users/current'));
}

/** The plan tier of a user: no subscription means the trial plan. */
export function planTierOf(user: Pick<User, 'subscription'> | null | undefined): PlanTier {
  return user?.subscription?.plan.tier ?? 'trial';
}

/** Spec planName: the plan's name, else Free Plan (free subscription or trial), else Archive Plan. */
export function planNameOf(user: Pick<User, 'subscription'> | null | undefined): string {
  const sub = user?.subscription;
  if (!sub) return 'Free Plan';
  if (sub.plan.name) return sub.plan.name;
  if (sub.id.includes('free_sub') || sub.plan.tier === 'trial' || sub.plan.tier === 'free') return 'Free Plan';
  return 'Archive Plan';
}

/** Active: status active/incomplete/incomplete_expired/trialing, period not ended, collection not paused. */
export function isSubscriptionActive(user: Pick<User, 'subscription'> | null | undefined, now = Date.now()): boolean {
  const sub = user?.subscription;
  if (!sub) return false;
  if (!['active', 'incomplete', 'incomplete_expired', 'trialing'].includes(sub.status)) return false;
  if (sub.payments_collection_paused) return false;
  if (sub.current_period_end && Date.parse(sub.current_period_end) < now) return false;
  return true;
}

