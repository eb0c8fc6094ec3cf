// Renders the whole app (providers, settings gate, routes) on a memory location against msw handlers.
import { render } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { vi } from 'vitest';
import { memoryLocation } from 'wouter/memory-location';
import { FEATURE_KEYS, type AvailableFeature, type FeatureKey, type PlanTier } from '../../contract/features';
import type { Settings } from '../../contract/schemas/settings';
import { SUBTITLE_LIMITS_DEFAULT, type Space } from '../../contract/schemas/space';
import type { User } from '../../contract/schemas/user';
import type { ProductsResponse } from '../../contract/schemas/payments';
import { App } from '../../src/app/app';
import { resetErrorEffectsState } from '../../src/app/errors';
import { resetAppStore } from '../../src/lib/store';
import type { AnyAuthProvider } from '../../src/lib/auth/types';
import { server } from './msw';

export function featureSet(visible: Partial<Record<FeatureKey, boolean>> = {}): Settings['scope_settings']['available_features'] {
  const out: Partial<Record<FeatureKey, AvailableFeature>> = {};
  for (const k of FEATURE_KEYS) out[k] = { enabled: !!visible[k], visible: !!visible[k], metadata: {} };
  return out as Settings['scope_settings']['available_features'];
}

export function settingsFixture(o: Partial<Settings> & { visible?: Partial<Record<FeatureKey, boolean>> } = {}): Settings {
  const { visible, ...rest } = o;
  return {
    kind: 'user',
    features: { maintenance: false, warning: null },
    languages: { transcription: [], translation: [] },
    scope_settings: {
      available_features: featureSet(visible ?? {}),
      max_video_download_duration: 7200,
      max_video_size: 1 << 30,
      max_video_duration: 10800,
    },
    surveys: [],
    white_label: false,
    ...rest,
  };
}

export function userFixture(o: Partial<User> & { plan?: PlanTier } = {}): User {
  const { plan, ...rest } = o;
  return {
    id: 'u1',
    email: 'ana@example.com',
    email_type: 'personal',
    is_superuser: false,
    is_active: true,
    picture: null,
    created_date: '2025-01-02T10:00:00Z',
    cognitoId: 'idn-1',
    api_credentials_generated: false,
    customer_id: null,
    churnkey_hmac: null,
    onboarding: [],
    email_consent: false,
    feature_groups: [],
    subscription:
      plan && plan !== 'trial'
        ? {
            id: 'sub_1',
            status: 'active',
            current_period_end: '2999-01-01T00:00:00Z',
            payments_collection_paused: false,
            cancel_at_period_end: false,
            plan: { id: `price_${plan}_month`, product_id: `prod_${plan}`, interval: 'month', recurring: true, tier: plan, name: plan },
          }
        : null,
    pending_welcome_spaces: [],
    ...rest,
  } as User;
}

export function spaceFixture(id: string, o: Partial<Space> = {}): Space {
  return {
    id,
    name: id === 'sp-default' ? 'My Teamspace' : `Space ${id}`,
    color: 'midnight',
    owner_id: 'u1',
    is_active: true,
    is_default: id === 'sp-default',
    members: [{ user_id: 'u1', email: 'ana@example.com', role: 'owner' }],
    invites: [],
    credits: { minutes: { total: 3, used: 0 }, video: { total: 0, used: 0 }, lipsync_free_minutes: 0 },
    loudness_target: 'source',
    subtitle_limits: { ...SUBTITLE_LIMITS_DEFAULT },
    ...o,
  };
}

export function stubAuth(o: { authenticated?: boolean; kind?: 'identity' | 'embedded'; email?: string } = {}): AnyAuthProvider & {
  signOut: ReturnType<typeof vi.fn>;
} {
  let authed = o.authenticated ?? true;
  const listeners = new Set<() => void>();
  const p = {
    kind: o.kind ?? 'identity',
    getToken: async () => (authed ? 'test-token' : null),
    signOut: vi.fn(async () => {
      authed = false;
      listeners.forEach((l) => l());
    }),
    isAuthenticated: () => authed,
    getEmail: () => (authed ? (o.email ?? 'ana@example.com') : null),
    subscribe: (l: () => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    signIn: vi.fn(),
    signUp: vi.fn(),
    getOidcConfig: async () => ({ enabled: false, providers: [] }),
    oidcStartUrl: () => '/api/auth/oidc/start',
    completeOidcCallback: () => '/',
    shop: null,
    redirect: vi.fn(),
  };
  return p as unknown as AnyAuthProvider & { signOut: ReturnType<typeof vi.fn> };
}

export interface ApiState {
  settings?: Settings | ((url: URL) => Settings | Response);
  user?: User | Response;
  spaces?: Space[];
  products?: ProductsResponse | Response;
}

/** A Stripe-like catalogue: four plans (monthly and yearly) and a minute pack at `minuteCents`. */
export function productsFixture(o: { checkout?: ProductsResponse['checkout']; minuteCents?: number | null; archived?: string[] } = {}): ProductsResponse {
  const plans: [PlanTier, string, number, number, number][] = [
    ['starter', 'Starter', 25, 1500, 14400], ['creator', 'Creator', 100, 4900, 46800], ['creator_pro', 'Creator Pro', 500, 14900, 142800], ['business', 'Business', 2000, 49900, 478800],
  ];
  const local = o.checkout === 'free' || o.checkout === 'admin';
  return {
    provider: local ? 'local' : 'stripe',
    checkout: o.checkout ?? 'stripe',
    plans: plans.map(([tier, name, minutes, month, year], i) => ({
      id: `prod_${tier}`, name, category: tier, tier, is_archived: false, metadata: { position: i + 1, monthly_minutes: minutes },
      prices: [
        { id: `price_${tier}_month`, unit_amount: local ? null : month, currency: 'usd', interval: 'month' as const, is_archived: false },
        { id: `price_${tier}_year`, unit_amount: local ? null : year, currency: 'usd', interval: 'year' as const, is_archived: false },
        ...(o.archived ?? []).filter((p) => p.startsWith(`price_${tier}_old`)).map((id) => ({ id, unit_amount: 900, currency: 'usd', interval: 'month' as const, is_archived: true })),
      ],
    })),
    credits: o.minuteCents === null ? [] : [{ id: 'prod_minutes', name: 'Extra minutes', prices: [{ id: 'price_minutes', unit_amount: local ? null : (o.minuteCents ?? 200), currency: 'usd', interval: null, is_archived: false }] }],
  };
}

/** msw handlers for the shell's calls; returns the requests seen. */
export function useApi(state: ApiState) {
  const seen: URL[] = [];
  server.use(
    http.get('*/api/settings', ({ request }) => {
      const url = new URL(request.url);
      seen.push(url);
      const s = state.settings ?? settingsFixture();
      const out = typeof s === 'function' ? s(url) : s;
      return out instanceof Response ? out : HttpResponse.json(out);
    }),
    http.get('*/api/users/current', ({ request }) => {
      seen.push(new URL(request.url));
      const u = state.user ?? userFixture();
      return u instanceof Response ? u : HttpResponse.json(u);
    }),
    http.get('*/api/space/list', ({ request }) => {
      seen.push(new URL(request.url));
      return HttpResponse.json(state.spaces ?? [spaceFixture('sp-default'), spaceFixture('sp-team')]);
    }),
    http.get('*/api/payments/products', ({ request }) => {
      seen.push(new URL(request.url));
      const p = state.products ?? productsFixture();
      return p instanceof Response ? p : HttpResponse.json(p);
    }),
    http.get('*/api/payments/latest_payment_info', () => HttpResponse.json({ items: [], amount: null, currency: null, created_date: null })),
    http.get('*/api/admin/payments', () => HttpResponse.json({ provider: 'local', local_checkout: 'admin' })),
    // The support chat widget of the shell: no conversation yet.
    http.get('*/api/support/thread', () => HttpResponse.json({ thread: null, messages: [] })),
    // The account page: no e-mail change waiting.
    http.get('*/api/users/current/email', () => HttpResponse.json({ pending_email: null, expires_at: null, sent: false })),
    // The minutes left in view (sidebar, editor) and the minute history: the space's own figures.
    http.get('*/api/space/:id/credits', ({ params }) => {
      const spaces = state.spaces ?? [spaceFixture('sp-default'), spaceFixture('sp-team')];
      const sp = spaces.find((x) => x.id === params.id) ?? spaceFixture(String(params.id));
      return HttpResponse.json(sp.credits);
    }),
    http.get('*/api/space/:id/usage', () => HttpResponse.json({ entries: [], page: 1, pages: 1, total: 0 })),
  );
  return seen;
}

export function renderApp(opts: { path: string; provider?: AnyAuthProvider }) {
  resetErrorEffectsState();
  const store = resetAppStore();
  const [pathname, search = ''] = opts.path.split('?');
  const location = memoryLocation({ path: pathname, searchPath: search, record: true });
  const provider = opts.provider ?? stubAuth();
  const utils = render(
    <App provider={provider} store={store} router={{ hook: location.hook, searchHook: location.searchHook }} swrProvider={() => new Map()} />,
  );
  const path = () => {
    const last = location.history[location.history.length - 1];
    return last;
  };
  return { ...utils, location, store, provider, path };
}
