// Payment return markers (spec section 2): ?payment-successful, ?payment-subscription-canceled and
// ?payment-credits-canceled each fire an analytics event and are removed from the URL; after a success a loader
// shows for 2 s while the account and credits are refreshed.
import { useEffect, useRef } from 'react';
import { useSWRConfig } from 'swr';
import { useLocation, useSearch } from 'wouter';
import { PAYMENT_RETURN_LOADER_MS } from '../../contract/constants';
import { CURRENT_USER_KEY } from '../lib/api/use-current-user';
import { analytics } from '../lib/analytics';
import { currentAppPath } from '../lib/page';
import { apiKey, getApi } from '../lib/api/use-api-get';
import { useLoadingOverlay } from '../ui/loading-overlay';
import { SPACE_LIST_KEY } from '../lib/api/use-spaces';
import type { User } from '../../contract/schemas/user';
import { showToast } from '../ui/toasts';

/**
 * What the user is told once the account is refreshed after a successful payment: the plan when the plan changed
 * or the latest payment was for it (its webhooks may have arrived before the browser came back), else minutes.
 */
export function paymentConfirmation(before: User | undefined, after: User | undefined, latestItems: readonly string[] = []): string {
  const plan = after?.subscription?.plan;
  const paidForPlan = !!plan && latestItems.some((n) => n.toLowerCase().startsWith(plan.name.toLowerCase()));
  if (plan && (plan.id !== before?.subscription?.plan.id || paidForPlan)) return `You are now on the ${plan.name} plan. Its minutes are in your Teamspace.`;
  return 'Payment received: your minutes are updated.';
}

export const PAYMENT_MARKERS = ['payment-successful', 'payment-subscription-canceled', 'payment-credits-canceled'] as const;
export type PaymentMarker = (typeof PAYMENT_MARKERS)[number];

/** The markers present in a query string and the query without them. */
export function takePaymentMarkers(search: string): { found: PaymentMarker[]; rest: string } {
  const q = new URLSearchParams(search);
  const found = PAYMENT_MARKERS.filter((m) => q.has(m));
  for (const m of found) q.delete(m);
  return { found, rest: q.toString() };
}

/** Rounds of re-reading the account while the payment provider's webhooks are still arriving. */
const SETTLE_ROUNDS = 5;
const SETTLE_STEP_MS = 1500;

/**
 * Re-reads the account until its plan changed (a plan bought) or a few rounds passed (minutes bought: the plan
 * stays), then says what happened.
 */
async function confirmWhenSettled(
  reload: () => Promise<User | undefined>,
  latest: () => Promise<{ items?: { item_name: string }[] } | undefined>,
  before: User | undefined,
): Promise<void> {
  let after: User | undefined;
  let items: string[] = [];
  for (let i = 0; i < SETTLE_ROUNDS; i++) {
    [after, items] = await Promise.all([
      reload().catch(() => undefined),
      latest().then((l) => (l?.items ?? []).map((x) => x.item_name), () => []),
    ]);
    if (after?.subscription && (after.subscription.plan.id !== before?.subscription?.plan.id || items.length > 0)) break;
    await new Promise((r) => setTimeout(r, SETTLE_STEP_MS));
  }
  showToast(paymentConfirmation(before, after, items), { durationMs: 10_000 });
}

export function PaymentReturn() {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const overlay = useLoadingOverlay();
  const { mutate, cache } = useSWRConfig();
  const pending = useRef<{ timer: ReturnType<typeof setTimeout>; release: () => void } | null>(null);

  // Unmount only: the loader must survive the URL change this component itself makes.
  useEffect(
    () => () => {
      if (pending.current) {
        clearTimeout(pending.current.timer);
        pending.current.release();
      }
    },
    [],
  );

  useEffect(() => {
    const { found, rest } = takePaymentMarkers(search);
    if (found.length === 0) return;
    for (const m of found) analytics.paymentReturn(m);
    // The page as it is now (a redirect may have moved it since this render): only the flags go.
    const now = currentAppPath();
    const path = now.split('?')[0] || location;
    const query = takePaymentMarkers(now.includes('?') ? now.slice(now.indexOf('?') + 1) : rest).rest;
    navigate(`${path}${query ? `?${query}` : ''}`, { replace: true });
    if (!found.includes('payment-successful')) return;
    if (pending.current) return;
    const release = overlay.show();
    const before = cache.get(CURRENT_USER_KEY)?.data as User | undefined;
    const timer = setTimeout(() => {
      pending.current = null;
      release();
      void confirmWhenSettled(
        () => mutate(CURRENT_USER_KEY) as Promise<User | undefined>,
        async () => {
          const l = await getApi('/api/payments/latest_payment_info');
          void mutate(apiKey('/api/payments/latest_payment_info'), l, { revalidate: false });
          return l;
        },
        before,
      ).finally(() => {
        void mutate(SPACE_LIST_KEY);
        void mutate((key) => typeof key === 'string' && key.startsWith('/api/space/') && key.endsWith('/credits'));
      });
      void mutate(SPACE_LIST_KEY);
    }, PAYMENT_RETURN_LOADER_MS);
    pending.current = { timer, release };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search]);
  return null;
}
