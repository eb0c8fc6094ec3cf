// Admin calls (superusers): customer search and CSV export, app flags.
import type { ScopedMutator } from 'swr';
import { ADMIN_LIST_LIMIT } from '../../../contract/constants';
import type { PlanTier } from '../../../contract/features';
import type { AdminUser } from '../../../contract/schemas/user';
import { call, clientWith } from '../../lib/api/client';
import { apiKey, useApiGet } from '../../lib/api/use-api-get';

/** Admin calls are not about a Teamspace: no space_id. */
const admin = () => clientWith({ spaceId: false });

export interface CustomerFilter {
  email?: string;
  date_gt?: string;
  date_lt?: string;
  subscription_type?: PlanTier | '';
  limit?: number;
}

/** Query string of a customer search (empty values left out; limit defaults to 20). */
export function customerQuery(f: CustomerFilter): URLSearchParams {
  const q = new URLSearchParams();
  if (f.email?.trim()) q.set('email', f.email.trim());
  if (f.date_gt) q.set('date_gt', f.date_gt);
  if (f.date_lt) q.set('date_lt', f.date_lt);
  if (f.subscription_type) q.set('subscription_type', f.subscription_type);
  q.set('limit', String(f.limit ?? ADMIN_LIST_LIMIT));
  return q;
}


export function useCustomers(f: CustomerFilter) {
  return useApiGet('/api/admin/users', { params: { query: Object.fromEntries(customerQuery(f)) } }, { keepPreviousData: true });
}

/** Downloads the CSV export of a search. */
export async function downloadCustomersCsv(f: CustomerFilter): Promise<void> {
  const q = customerQuery(f);
  q.delete('limit');
  const blob = await call(admin().GET('/api/admin/users/csv', { params: { query: Object.fromEntries(q) }, parseAs: 'blob' }));
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = 'users.csv';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export interface AppFlags {
  maintenance?: boolean;
  warning?: { severity: 'info' | 'warning' | 'critical'; maintenance_time: string | null; message: string | null } | null;
}

export function saveAppFlags(flags: AppFlags): Promise<unknown> {
  return call(admin().PUT('/api/admin/settings', { body: flags }));
}


/** Grants a plan to a user (superuser): PATCH /api/admin/users/{id} {plan}; the customer lists refetch. */
export async function grantPlan(mutate: ScopedMutator, userId: string, plan: PlanTier): Promise<AdminUser> {
  const user = await call(admin().PATCH('/api/admin/users/{id}', { params: { path: { id: userId } }, body: { plan } }));
  await mutate((key) => typeof key === 'string' && key.startsWith('/api/admin/users'));
  return user;
}

/** Grants a minute pack to a user's default Teamspace (superuser); `requestId` makes a second click grant once. */
export async function grantMinutes(mutate: ScopedMutator, userId: string, minutes: number, requestId: string, note?: string) {
  const r = await call(admin().POST('/api/admin/users/{id}/minutes', { params: { path: { id: userId } }, body: { minutes, request_id: requestId, note } }));
  await mutate((key) => typeof key === 'string' && key.startsWith('/api/admin/users'));
  return r;
}

export const PAYMENTS_SETTINGS_KEY = apiKey('/api/admin/payments');
export function usePaymentsSettings() {
  return useApiGet('/api/admin/payments', {});
}
export async function savePaymentsSettings(mutate: ScopedMutator, local_checkout: 'free' | 'admin') {
  const r = await call(admin().PUT('/api/admin/payments', { body: { local_checkout } }));
  await mutate(PAYMENTS_SETTINGS_KEY, r, { revalidate: false });
  await mutate('/api/payments/products');
  return r;
}
