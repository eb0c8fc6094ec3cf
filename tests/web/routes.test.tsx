import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { PAYMENT_RETURN_LOADER_MS } from '../../contract/constants';
import { currentSpaceIdAtom } from '../../src/lib/state';
import { renderApp, spaceFixture, stubAuth, useApi, userFixture } from './app-harness';
import { server } from './msw';

// The pages of other areas are not under test here: the router only has to pick them.
vi.mock('../../src/features/projects', () => ({
  ProjectsHome: () => <h1>Projects home page</h1>,
  FolderPage: () => <h1>Folder page</h1>,
}));
vi.mock('../../src/features/editor', () => ({ ProjectPage: () => <h1>Project page</h1> }));
vi.mock('../../src/features/spaces', () => ({
  TeamspaceSwitcher: ({ collapsed }: { collapsed: boolean }) => <div data-testid="switcher">{collapsed ? 'collapsed' : 'My Teamspace'}</div>,
  TeamspaceModals: () => null,
  useOpenTeamspaceDialog: () => () => {},
}));

describe('routes and redirects', () => {
  it('the root redirects to the first (default) space', async () => {
    useApi({ spaces: [spaceFixture('sp-default'), spaceFixture('sp-team', { is_default: false })] });
    const app = renderApp({ path: '/' });
    await screen.findByRole('heading', { name: 'Projects home page' });
    expect(app.path()).toBe('/spaces/sp-default');
    expect(app.store.get(currentSpaceIdAtom)).toBe('sp-default');
  });

  it.each([
    ['/voices', '/spaces/sp-default/voices', 'Voice Clone Library'],
    ['/glossaries', '/spaces/sp-default/glossaries', 'Dictionary'],
    ['/folders/f1', '/spaces/sp-default/folders/f1', 'Folder page'],
    ['/project/p42', '/spaces/sp-default/project/p42', 'Project page'],
  ])('unprefixed %s goes to the first space (%s)', async (from, to, heading) => {
    useApi({});
    const app = renderApp({ path: from });
    await screen.findByRole('heading', { name: heading });
    expect(app.path()).toBe(to);
  });

  it('opens a space the user belongs to and makes it current', async () => {
    useApi({});
    const app = renderApp({ path: '/spaces/sp-team/voices' });
    await screen.findByRole('heading', { name: 'Voice Clone Library' });
    expect(app.path()).toBe('/spaces/sp-team/voices');
    expect(app.store.get(currentSpaceIdAtom)).toBe('sp-team');
  });

  it('a space the user may not access redirects home (then to the first space)', async () => {
    useApi({});
    const app = renderApp({ path: '/spaces/sp-foreign' });
    await screen.findByRole('heading', { name: 'Projects home page' });
    expect(app.path()).toBe('/spaces/sp-default');
    expect(app.store.get(currentSpaceIdAtom)).toBe('sp-default');
  });

  it('an inactive space is closed to a member who does not own it', async () => {
    useApi({ spaces: [spaceFixture('sp-default'), spaceFixture('sp-off', { is_active: false, owner_id: 'someone-else' })] });
    const app = renderApp({ path: '/spaces/sp-off' });
    await screen.findByRole('heading', { name: 'Projects home page' });
    expect(app.path()).toBe('/spaces/sp-default');
  });

  it('a superuser may enter any space', async () => {
    useApi({ user: userFixture({ is_superuser: true }) });
    const app = renderApp({ path: '/spaces/sp-foreign' });
    await screen.findByRole('heading', { name: 'Projects home page' });
    expect(app.path()).toBe('/spaces/sp-foreign');
  });

  it('signed-out users go to /auth with the origin kept', async () => {
    useApi({});
    const app = renderApp({ path: '/spaces/sp-team/project/p1?page=2', provider: stubAuth({ authenticated: false }) });
    await screen.findByRole('heading', { name: 'Sign in to your account' });
    expect(app.path()).toBe(`/auth?origin=${encodeURIComponent('/spaces/sp-team/project/p1?page=2')}`);
  });

  it('a signed-in user on /auth goes back to the origin', async () => {
    useApi({});
    const app = renderApp({ path: '/auth?origin=%2Fspaces%2Fsp-team%2Fglossaries' });
    await screen.findByRole('heading', { name: 'Dictionary' });
    expect(app.path()).toBe('/spaces/sp-team/glossaries');
  });

  it('an unknown path shows the not-found page', async () => {
    useApi({});
    renderApp({ path: '/no/such/page' });
    await screen.findByRole('heading', { name: 'Page not found' });
  });

  it('/admin is the customers list for a superuser and goes home for everyone else', async () => {
    server.use(http.get('*/api/admin/users', () => HttpResponse.json([])));
    useApi({ user: userFixture({ is_superuser: true }) });
    const admin = renderApp({ path: '/admin' });
    await screen.findByRole('heading', { name: 'Admin' });
    // Polaris Tabs renders a hidden measuring copy of every tab (same role, same name) beside the tab strip, and
    // only gives the strip its tablist role once it has measured: query inside the tablist, never the whole page.
    const tabs = await screen.findByRole('tablist');
    expect(within(tabs).getByRole('tab', { name: 'Customers', selected: true })).toBeTruthy();
    admin.unmount();

    useApi({ user: userFixture({ is_superuser: false }) });
    const other = renderApp({ path: '/admin/feedback' });
    await screen.findByRole('heading', { name: 'Projects home page' });
    expect(other.path()).toBe('/spaces/sp-default');
  });

  it('creates the product account when GET /users/current says User not found, then lands in My Teamspace', async () => {
    let created: unknown = null;
    let user: ReturnType<typeof userFixture> | null = null;
    server.use(
      http.post('*/api/users', async ({ request }) => {
        created = await request.json();
        user = userFixture({ email: 'new@example.com' });
        return HttpResponse.json(user, { status: 201 });
      }),
    );
    useApi({});
    server.use(
      http.get('*/api/users/current', () =>
        user ? HttpResponse.json(user) : HttpResponse.json({ detail: 'User not found' }, { status: 404 }),
      ),
    );
    const app = renderApp({ path: '/', provider: stubAuth({ email: 'new@example.com' }) });
    await screen.findByRole('heading', { name: 'Projects home page' });
    expect(created).toEqual({ email: 'new@example.com', referral_id: null, token: 'test-token' });
    expect(app.path()).toBe('/spaces/sp-default');
  });

  it('payment return markers fire an analytics event and leave the URL', async () => {
    useApi({});
    window.dataLayer = [];
    const app = renderApp({ path: '/spaces/sp-default?payment-credits-canceled&page=2' });
    await waitFor(() => expect(app.path()).toBe('/spaces/sp-default?page=2'));
    expect(window.dataLayer).toContainEqual(expect.objectContaining({ event: 'paymentReturn', result: 'payment-credits-canceled' }));
  });

  it('after payment-successful a loader shows for 2 s while the account is refreshed', async () => {
    let userCalls = 0;
    useApi({});
    server.use(http.get('*/api/users/current', () => (userCalls++, HttpResponse.json(userFixture({ plan: 'creator' })))));
    window.dataLayer = [];
    // Taken before the render, so it is never later than the moment the loader appears: the time until it is seen
    // gone is then at least how long it was shown, however late (on a loaded machine) each check runs.
    const rendered = performance.now();
    const app = renderApp({ path: '/spaces/sp-default?payment-successful' });
    await screen.findByRole('progressbar', { name: 'Loading' });
    expect(app.path()).toBe('/spaces/sp-default');
    expect(window.dataLayer).toContainEqual(expect.objectContaining({ event: 'paymentReturn', result: 'payment-successful' }));
    const before = userCalls;
    await waitFor(() => expect(screen.queryByRole('progressbar', { name: 'Loading' })).toBeNull(), { timeout: 10_000 });
    // (less a few ms: a timer may fire slightly before its delay by another clock)
    expect(performance.now() - rendered).toBeGreaterThanOrEqual(PAYMENT_RETURN_LOADER_MS - 20);
    await waitFor(() => expect(userCalls).toBeGreaterThan(before));
  });
});
