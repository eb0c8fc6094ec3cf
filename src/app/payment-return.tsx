// Payment return markers (spec section 2): ?payment-successful, ?payment-subscription-canceled and
// ?payment-credits-canceled each fire an analytics event and are removed from the URL; after a success a loader
// shows for 2 s while the account and credits are refreshed.
import { useEffect, useRef } from 'react';
import { useSWRConfig } from 'swr';
import { useLocation, useSearch } from 'wouter';
import { PAYMENT_RETURN_LOADER_MS } from '../../contract/constants';
import { CURRENT_USER_KEY } from '../lib/api/use-current-user';
import { analytics } from '../lib/analytics';
import { useLoadingOverlay } from '../ui/loading-overlay';
import { SPACE_LIST_KEY } from '../lib/api/use-spaces';
import type { User } from '../../contract/schemas/user';
import { showToast } from '../ui/toasts';

/** What the user is told once the account is refreshed after a successful payment. */
export function paymentConfirmation(before: User | undefined, after: User | undefined): string {
  const plan = after?.subscription?.plan;
  if (plan && plan.id !== before?.subscription?.plan.id) return `You are now on the ${plan.name} plan. Its minutes are in your Teamspace.`;
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
    navigate(`${location}${rest ? `?${rest}` : ''}`, { replace: true });
    if (!found.includes('payment-successful')) return;
    if (pending.current) return;
    const release = overlay.show();
    const before = cache.get(CURRENT_USER_KEY)?.data as User | undefined;
    const timer = setTimeout(() => {
      pending.current = null;
      release();
      void mutate(CURRENT_USER_KEY).then((after) => showToast(paymentConfirmation(before, after as User | undefined), { durationMs: 10_000 }));
      void mutate(SPACE_LIST_KEY);
      void mutate((key) => typeof key === 'string' && key.startsWith('/api/space/') && key.endsWith('/credits'));
      void mutate('/api/payments/latest_payment_info');
    }, PAYMENT_RETURN_LOADER_MS);
    pending.current = { timer, release };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search]);
  return null;
}
