// The demo view on the Translation page: shown to trial users in the demo_project group only (not the control
// option, not a paid plan), the demo's cover in each language; a click opens the demo project in the editor;
// a refusal shows its reason; the tour's first demo step is anchored to the view.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DemoCovers } from '../../contract/schemas/onboarding';
import type { User } from '../../contract/schemas/user';
import { demoOffered } from '../../src/features/onboarding/demo-api';
import { renderApp, useApi, userFixture } from './app-harness';
import { server } from './msw';

vi.setConfig({ testTimeout: 20_000 });

const COVER = 'http://localhost/api/files/demo/v1/cover.jpg?sig=x';
const covers = (o: Partial<Record<string, string | null>> = {}): DemoCovers => ({
  title: 'Sense and Sensibility',
  src_lang: 'en',
  duration: 17.8,
  cover_url: COVER,
  languages: [
    { dst_lang: 'es', label: 'Spanish', country_code: 'ES', cover_url: COVER, project_id: o.es ?? null, status: o.es ? 'merging_done' : null },
    { dst_lang: 'ca', label: 'Catalan', country_code: 'ES', cover_url: COVER, project_id: null, status: null },
  ],
});

let coverCalls: number;
let posted: unknown[];
let postAnswer: () => Response;

function useDemoApi(user: User, c: DemoCovers = covers()) {
  coverCalls = 0;
  posted = [];
  useApi({ user });
  server.use(
    http.get('*/api/project/demo/covers', () => {
      coverCalls++;
      return HttpResponse.json(c);
    }),
    http.post('*/api/project/demo', async ({ request }) => {
      posted.push(await request.json());
      return postAnswer();
    }),
    http.get('*/api/project/paginated', () => HttpResponse.json({ data: [], offset: 0, total: 0 })),
    http.get('*/api/project/folders', () => HttpResponse.json({ data: [] })),
    http.get('*/api/space/:id/credits', () => HttpResponse.json({ minutes: { total: 3, used: 0 }, video: { total: 0, used: 0 }, lipsync_free_minutes: 0 })),
    http.get('*/api/space/limits', () => HttpResponse.json({ plan: 'trial', subscription_active: false, spaces_enabled: false, spaces_limit: 0, user_limit: 0, owned_spaces: 1, can_create: false })),
    // The editor the demo opens in (its page is not under test here).
    http.get('*/api/project/:id', () => HttpResponse.json({ detail: 'Project not found' }, { status: 404 })),
  );
}

const demoUser = (o: Partial<User> & { plan?: 'business' } = {}) =>
  userFixture({ created_date: '2025-06-01T00:00:00Z', feature_groups: [{ name: 'demo_project', option: { id: 'demo' } }], ...o });

beforeEach(() => {
  postAnswer = () => HttpResponse.json({ id: 'p-demo', space_id: 'sp-default', name: 'Demo: Sense and Sensibility' }, { status: 201 });
});

describe('demo view', () => {
  it('shows the demo cover per language to a trial user of the demo group, with the tour step beside it', async () => {
    useDemoApi(demoUser());
    renderApp({ path: '/spaces/sp-default' });
    const list = await screen.findByRole('list', { name: 'Demo languages' });
    const items = within(list).getAllByRole('listitem');
    expect(items.map((i) => i.getAttribute('data-lang'))).toEqual(['es', 'ca']);
    const img = within(items[0]!).getByRole('img') as HTMLImageElement;
    expect(img.src).toBe(COVER);
    expect(img.alt).toBe('Sense and Sensibility in Spanish');
    const view = list.closest('[data-tour="demo-view"]') as HTMLElement;
    expect(within(view).getByText(/Pick a language: it costs no minutes/)).toBeTruthy();
    // The first tour step of the demo set points at the view.
    const step = await screen.findByRole('complementary', { name: 'Start with a demo' });
    expect(step.getAttribute('data-tour-step')).toBe('demoProjectWelcome_v1');
  });

  it('opens the demo in the chosen language in the editor', async () => {
    useDemoApi(demoUser());
    const app = renderApp({ path: '/spaces/sp-default' });
    const list = await screen.findByRole('list', { name: 'Demo languages' });
    fireEvent.click(within(list).getByRole('button', { name: 'Open the demo in Spanish' }));
    await waitFor(() => expect(app.path()).toBe('/spaces/sp-default/project/p-demo'));
    expect(posted).toEqual([{ dst_lang: 'es' }]);
  });

  it('an existing demo reads "Open demo"; a refusal shows its reason and the buttons work again', async () => {
    postAnswer = () => HttpResponse.json({ detail: 'The demo cannot be dubbed into "ca" on this server' }, { status: 400 });
    useDemoApi(demoUser(), covers({ es: 'p-old' }));
    renderApp({ path: '/spaces/sp-default' });
    const list = await screen.findByRole('list', { name: 'Demo languages' });
    const es = within(list).getByRole('button', { name: 'Open the demo in Spanish' });
    expect(es.textContent).toBe('Open demo');
    expect(within(list).getByText('Ready')).toBeTruthy();
    const ca = within(list).getByRole('button', { name: 'Open the demo in Catalan' });
    fireEvent.click(ca);
    expect(await screen.findByText('The demo cannot be dubbed into "ca" on this server')).toBeTruthy();
    await waitFor(() => expect(ca.getAttribute('aria-disabled')).not.toBe('true'));
    expect(es.getAttribute('aria-disabled')).not.toBe('true');
  });

  it('is not offered to the control group, a paid plan or users outside the group (nothing is asked)', async () => {
    expect(demoOffered(demoUser())).toBe(true);
    expect(demoOffered(userFixture({ feature_groups: [{ name: 'demo_project', option: { id: 'control' } }] }))).toBe(false);
    expect(demoOffered(demoUser({ plan: 'business' }))).toBe(false);
    expect(demoOffered(userFixture())).toBe(false);
    let listed = 0;
    useDemoApi(demoUser({ plan: 'business' }));
    server.use(http.get('*/api/project/paginated', () => {
      listed++;
      return HttpResponse.json({ data: [], offset: 0, total: 0 });
    }));
    renderApp({ path: '/spaces/sp-default' });
    await waitFor(() => expect(listed).toBeGreaterThan(0));
    expect(screen.queryByRole('list', { name: 'Demo languages' })).toBeNull();
    expect(coverCalls).toBe(0);
  });
});
