// Rendering helpers of the Teamspaces web tests: Polaris, a fresh SWR cache, a jotai store and a memory router.
import { AppProvider } from '@shopify/polaris';
import en from '@shopify/polaris/locales/en.json';
import { render } from '@testing-library/react';
import { createStore, Provider as JotaiProvider } from 'jotai';
import { http, HttpResponse } from 'msw';
import type { ReactNode } from 'react';
import { SWRConfig } from 'swr';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { SUBTITLE_LIMITS_DEFAULT, type Space } from '../../contract/schemas/space';
import type { User } from '../../contract/schemas/user';
import { server } from './msw';

export function renderUi(ui: ReactNode, opts: { path?: string } = {}) {
  const loc = memoryLocation({ path: opts.path ?? '/spaces/s-default', record: true });
  const store = createStore();
  const utils = render(
    <AppProvider i18n={en}>
      <SWRConfig value={{ provider: () => new Map(), dedupingInterval: 0, shouldRetryOnError: false }}>
        <JotaiProvider store={store}>
          <Router hook={loc.hook}>{ui}</Router>
        </JotaiProvider>
      </SWRConfig>
    </AppProvider>,
  );
  return { ...utils, loc, store };
}

export const OWNER_ID = '11111111-1111-4111-8111-111111111111';
export const EDITOR_ID = '22222222-2222-4222-8222-222222222222';

export function user(over: Partial<User> = {}): User {
  return {
    id: OWNER_ID,
    email: 'owner@example.com',
    email_type: 'password',
    is_superuser: false,
    is_active: true,
    picture: null,
    created_date: '2025-01-01T00:00:00Z',
    cognitoId: 'idn',
    api_credentials_generated: false,
    customer_id: null,
    churnkey_hmac: null,
    onboarding: [],
    email_consent: false,
    feature_groups: [],
    subscription: null,
    pending_welcome_spaces: [],
    ...over,
  };
}

export function space(over: Partial<Space> = {}): Space {
  return {
    id: 's-team',
    name: 'Team',
    color: 'ocean',
    owner_id: OWNER_ID,
    is_active: true,
    is_default: false,
    members: [
      { user_id: OWNER_ID, email: 'owner@example.com', role: 'owner' },
      { user_id: EDITOR_ID, email: 'editor@example.com', role: 'editor' },
    ],
    invites: [{ id: 'inv-1', email: 'pending@example.com' }],
    credits: { minutes: { total: 100, used: 12 }, video: { total: 0, used: 0 }, lipsync_free_minutes: 0 },
    loudness_target: 'source',
    subtitle_limits: { ...SUBTITLE_LIMITS_DEFAULT },
    ...over,
  };
}

export function limits(over: Record<string, unknown> = {}) {
  return {
    plan: 'business',
    subscription_active: true,
    spaces_enabled: true,
    spaces_limit: 2,
    user_limit: 5,
    owned_spaces: 2,
    can_create: false,
    ...over,
  };
}

export function spaceSettings(userLimit: number | null = 5, enabled = true) {
  return {
    kind: 'space',
    features: { maintenance: false, warning: null },
    languages: { transcription: [], translation: [] },
    scope_settings: {
      available_features: { spaces: { enabled, visible: true, metadata: { user_limit: userLimit, limit: 2 } } },
      max_video_download_duration: 7200,
      max_video_size: 1e9,
      max_video_duration: 10800,
    },
    surveys: [],
    white_label: false,
  };
}

/**
 * Records every request that reached the mock API, in the order they were made. The entry is added as the request
 * starts (before any handler answers it); its body is read from a clone afterwards, so a test that checks a body
 * waits for it (waitFor), never assumes it is already there when the response has been handled.
 */
export function recordRequests() {
  const seen: { method: string; path: string; search: string; body: unknown }[] = [];
  server.events.on('request:start', ({ request }) => {
    const u = new URL(request.url);
    const entry = { method: request.method, path: u.pathname, search: u.search, body: null as unknown };
    seen.push(entry);
    void request
      .clone()
      .text()
      .then(
        (t) => {
          try {
            entry.body = t ? JSON.parse(t) : null;
          } catch {
            entry.body = t;
          }
        },
        () => {},
      );
  });
  return seen;
}

export const json = (data: unknown, status = 200) => HttpResponse.json(data as never, { status });
export { http, server };
