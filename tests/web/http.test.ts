import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TEXT } from '../../contract/errors';
import { applyErrorEffects, classifyApiError, resetErrorEffectsState, type EffectDeps } from '../../src/app/errors';
import { paymentRequiredAction } from '../../src/lib/payment';
import { SPACE_LIST_KEY } from '../../src/lib/api/use-spaces';
import { buyMinutesOpenAtom, globalErrorAtom, unknownErrorOpenAtom } from '../../src/lib/state';
import { resetAppStore } from '../../src/lib/store';
import { setAuthProvider } from '../../src/lib/auth/active';
import type { AnyAuthProvider } from '../../src/lib/auth/types';
import { getApi } from '../../src/lib/api/use-api-get';
import { api, ApiError, errorText, toApiError, isApiError, onApiError, setSpaceIdSource, TIMEOUT_HEADER } from '../../src/lib/http';
import { server } from './msw';

function stubProvider(token: string | null = 'tok-1', kind: 'identity' | 'embedded' = 'identity'): AnyAuthProvider {
  return {
    kind,
    getToken: async () => token,
    signOut: vi.fn(async () => {}),
    isAuthenticated: () => token !== null,
    getEmail: () => null,
    subscribe: () => () => {},
  } as unknown as AnyAuthProvider;
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(isApiError(e)).toBe(true);
    return e as ApiError;
  }
  throw new Error('expected a failure');
}

describe('http client: headers and space_id', () => {
  beforeEach(() => {
    setAuthProvider(stubProvider('tok-1'));
    setSpaceIdSource(() => 'space-9');
  });
  afterEach(() => {
    setAuthProvider(null);
    setSpaceIdSource(() => null);
  });

  it('adds the bearer token and space_id, keeps an explicit space_id, and skips auth paths', async () => {
    const seen: { url: URL; auth: string | null }[] = [];
    server.use(
      http.all('*/api/*', ({ request }) => {
        seen.push({ url: new URL(request.url), auth: request.headers.get('authorization') });
        return HttpResponse.json({ ok: true });
      }),
    );
    await api.get('users/current').json();
    await api.get('project/paginated', { searchParams: { space_id: 'explicit', limit: 24 } }).json();
    await api.post('project/p1/generate', { json: { a: 1 } }).json();
    await api.post('auth/refresh', { json: { refresh_token: 'x' }, context: { auth: false } }).json();
    await api.get('settings', { context: { spaceId: false } }).json();
    await getApi('/api/space/list');

    expect(seen[0].auth).toBe('Bearer tok-1');
    expect(seen[0].url.searchParams.get('space_id')).toBe('space-9');
    expect(seen[1].url.searchParams.getAll('space_id')).toEqual(['explicit']);
    expect(seen[1].url.searchParams.get('limit')).toBe('24');
    expect(seen[2].url.searchParams.get('space_id')).toBe('space-9');
    expect(seen[3].url.pathname).toBe('/api/auth/refresh');
    expect(seen[3].url.searchParams.has('space_id')).toBe(false);
    expect(seen[3].auth).toBeNull();
    expect(seen[4].url.searchParams.has('space_id')).toBe(false);
    expect(seen[5].url.pathname).toBe('/api/space/list');
  });

  it('keeps the JSON body when it rewrites the URL', async () => {
    let body: unknown = null;
    server.use(
      http.post('*/api/project/p1/copy', async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ ok: true });
      }),
    );
    await api.post('project/p1/copy', { json: { dst_lang: 'de', free_dubbing: false } }).json();
    expect(body).toEqual({ dst_lang: 'de', free_dubbing: false });
  });

  it('sends no authorization header when signed out', async () => {
    setAuthProvider(stubProvider(null));
    let auth: string | null = 'unset';
    server.use(
      http.get('*/api/settings', ({ request }) => {
        auth = request.headers.get('authorization');
        return HttpResponse.json({});
      }),
    );
    await api.get('settings').json();
    expect(auth).toBeNull();
  });
});

describe('http client: error mapping', () => {
  beforeEach(() => setAuthProvider(stubProvider()));
  afterEach(() => setAuthProvider(null));

  const answer = (status: number, body: unknown, statusText = '') =>
    server.use(
      http.get('*/api/thing', () =>
        typeof body === 'string'
          ? new HttpResponse(body, { status, statusText, headers: { 'content-type': 'text/plain' } })
          : body === undefined
            ? new HttpResponse(null, { status, statusText })
            : HttpResponse.json(body, { status, statusText }),
      ),
    );

  it('1. error message first', async () => {
    answer(400, { error: { message: 'from error.message' }, detail: 'from detail' }, 'Bad Request');
    const e = await failure(api.get('thing'));
    expect(e).toMatchObject({ status: 400, message: 'from error.message', detail: 'from detail' });
  });

  it('2. then the first msg of a detail list', async () => {
    answer(422, { detail: [{ loc: ['body', 'email'], msg: 'Incorrect email', type: 'value_error' }, { loc: [], msg: 'second', type: 'x' }] }, 'Unprocessable Entity');
    const e = await failure(api.get('thing'));
    expect(e.status).toBe(422);
    expect(e.message).toBe('Incorrect email');
    expect(Array.isArray(e.detail)).toBe(true);
  });

  it('3. then a plain string body', async () => {
    answer(500, 'Upstream exploded', 'Internal Server Error');
    const e = await failure(api.get('thing'));
    expect(e.message).toBe('Upstream exploded');
  });

  it('4. then a string detail', async () => {
    answer(403, { detail: 'You have no access to this resource' }, 'Forbidden');
    const e = await failure(api.get('thing'));
    expect(e.message).toBe('You have no access to this resource');
  });

  it('5. then the status text', async () => {
    answer(502, undefined, 'Bad Gateway');
    const e = await failure(api.get('thing'));
    expect(e).toMatchObject({ status: 502, message: 'Bad Gateway' });
  });

  it('6. then a non-string top-level detail', () => {
    expect(errorText({ detail: { code: 7 } }, '')).toBe('{"code":7}');
  });

  it('otherwise the server-error text, also for any non-HTTP failure', () => {
    expect(errorText(undefined, '')).toBe(TEXT.serverError);
    expect(errorText({}, '')).toBe(TEXT.serverError);
    expect(errorText('<html>oops</html>', '')).toBe(TEXT.serverError);
    expect(toApiError(new Error('parse failure'))).toMatchObject({ status: 0, message: TEXT.serverError });
  });

  it('a network failure becomes 504 Gateway Timeout', async () => {
    server.use(http.get('*/api/thing', () => HttpResponse.error()));
    const e = await failure(api.get('thing'));
    expect(e).toMatchObject({ status: 504, message: 'Gateway Timeout' });
  });

  it('a request past its timeout becomes 504 Gateway Timeout', async () => {
    server.use(http.get('*/api/thing', () => new Promise<Response>(() => {})));
    const e = await failure(api.get('thing', { headers: { [TIMEOUT_HEADER]: '50' } }));
    expect(e).toMatchObject({ status: 504, message: TEXT.gatewayTimeout });
  });

  it('the typed getter of the SWR queries throws the same ApiError', async () => {
    server.use(http.get('*/api/users/current', () => HttpResponse.json({ detail: 'User not found' }, { status: 404, statusText: 'Not Found' })));
    const e = await failure(getApi('/api/users/current'));
    expect(e).toMatchObject({ status: 404, message: 'User not found', path: 'users/current' });
  });

  it('notifies error listeners once per failure unless the request opts out', async () => {
    answer(500, { detail: 'boom' });
    const seen: string[] = [];
    const off = onApiError(({ error }) => seen.push(error.message));
    await failure(api.get('thing'));
    await failure(api.get('thing', { context: { effects: false } }));
    off();
    expect(seen).toEqual(['boom']);
  });
});

describe('global error effects', () => {
  function deps(overrides: Partial<EffectDeps> = {}) {
    const store = resetAppStore();
    const d = {
      store,
      getUser: () => null,
      revalidate: vi.fn(),
      navigate: vi.fn(),
      signOutToAuth: vi.fn(async () => {}),
      signOutClearAndReload: vi.fn(async () => {}),
      report: vi.fn(),
      ...overrides,
    } satisfies EffectDeps;
    return d;
  }
  const err = (status: number, detail: unknown, method = 'GET', path = 'thing') =>
    new ApiError({ status, message: typeof detail === 'string' ? detail : 'x', detail, method, path });

  beforeEach(() => {
    resetErrorEffectsState();
    setAuthProvider(stubProvider());
  });
  afterEach(() => setAuthProvider(null));

  it('402 without the credits suffix sets paymentRequired and opens pricing for a trial user', () => {
    const d = deps();
    applyErrorEffects(err(402, 'Upgrade your plan to use lip-sync'), d);
    expect(d.store.get(globalErrorAtom)).toBe('paymentRequired');
    expect(d.navigate).toHaveBeenCalledWith('/pricing', expect.objectContaining({ from: expect.any(String) }));
  });

  it('402 ending with "credits available." is reported as no credits, not paymentRequired', () => {
    const d = deps();
    const effects = applyErrorEffects(err(402, 'You have 0 credits available.'), d);
    expect(effects).toEqual(['noCredits']);
    expect(d.report).toHaveBeenCalledWith(TEXT.noCredits, expect.any(ApiError));
    expect(d.store.get(globalErrorAtom)).toBe('none');
    expect(d.navigate).not.toHaveBeenCalled();
  });

  it('paymentRequired opens buy-minutes, the Unknown Error modal or pricing by the spec rule', () => {
    const base = { hasActiveNonEnterpriseSubscription: true, canBuyMinutes: true, hasArchivedSubscription: true, hasEnterprisePlan: false };
    expect(paymentRequiredAction(base)).toBe('buyMinutes');
    expect(paymentRequiredAction({ ...base, hasArchivedSubscription: false })).toBe('pricing');
    expect(paymentRequiredAction({ ...base, hasActiveNonEnterpriseSubscription: false, hasEnterprisePlan: true })).toBe('unknownError');

    const d1 = deps({ paymentContext: () => base });
    applyErrorEffects(err(402, 'Payment required'), d1);
    expect(d1.store.get(buyMinutesOpenAtom)).toBe(true);

    const d2 = deps({ paymentContext: () => ({ ...base, hasActiveNonEnterpriseSubscription: false, hasEnterprisePlan: true }) });
    applyErrorEffects(err(402, 'Payment required'), d2);
    expect(d2.store.get(unknownErrorOpenAtom)).toBe(true);
    expect(d2.navigate).not.toHaveBeenCalled();
  });

  it('400 Inactive user sets inactiveUser and signs out once', () => {
    const d = deps();
    applyErrorEffects(err(400, TEXT.inactiveUser), d);
    applyErrorEffects(err(400, TEXT.inactiveUser), d);
    expect(d.store.get(globalErrorAtom)).toBe('inactiveUser');
    expect(d.signOutToAuth).toHaveBeenCalledTimes(1);
    expect(d.signOutToAuth).toHaveBeenCalledWith({ notice: TEXT.inactiveUser });
  });

  it('a different 400 does nothing global', () => {
    const d = deps();
    expect(applyErrorEffects(err(400, 'Bad segment'), d)).toEqual([]);
    expect(d.signOutToAuth).not.toHaveBeenCalled();
  });

  it('401 signs out to /auth keeping the origin', () => {
    window.history.replaceState(null, '', '/spaces/s1/project/p1?page=2');
    const d = deps();
    applyErrorEffects(err(401, 'Token expired'), d);
    expect(d.signOutToAuth).toHaveBeenCalledWith({ origin: '/spaces/s1/project/p1?page=2' });
    window.history.replaceState(null, '', '/');
  });

  it('401 from the identity service itself (wrong password) is not a lost session', () => {
    const d = deps();
    expect(applyErrorEffects(err(401, TEXT.invalidCredentials, 'POST', 'auth/sign-in'), d)).toEqual([]);
    expect(d.signOutToAuth).not.toHaveBeenCalled();
  });

  it('409 on POST /users logs out, clears storage and reloads; 409 elsewhere does not', () => {
    const d = deps();
    expect(classifyApiError(err(409, 'Conflict', 'POST', 'space/create'))).toEqual([]);
    applyErrorEffects(err(409, 'User already exists', 'POST', 'users'), d);
    expect(d.signOutClearAndReload).toHaveBeenCalledTimes(1);
  });

  it('"You have no access to this resource" refetches the space list', () => {
    const d = deps();
    applyErrorEffects(err(403, 'You have no access to this resource'), d);
    expect(d.revalidate).toHaveBeenCalledWith(SPACE_LIST_KEY);
  });
});
