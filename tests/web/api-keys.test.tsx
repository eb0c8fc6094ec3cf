// The account page's API keys section against msw: the list (prefix, last use), creating a key (shown once, with
// copy), revoking one after confirmation, and the upgrade banner when the plan does not include the API.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiCredential } from '../../contract/schemas/api';
import { renderApp, useApi, userFixture } from './app-harness';
import { server } from './msw';

vi.setConfig({ testTimeout: 20_000 });

const KEY = 'dsk_' + 'A'.repeat(32);
let keys: ApiCredential[];
let enabled: boolean;
let calls: string[];

beforeEach(() => {
  keys = [{ id: 'k1', name: 'Production', prefix: 'dsk_abcdefgh', created_at: '2026-01-02T10:00:00Z', last_used_at: null, revoked_at: null }];
  enabled = true;
  calls = [];
  useApi({ user: userFixture({ plan: 'business' }) });
  server.use(
    http.get('*/api/space/limits', () => HttpResponse.json({ plan: 'business', subscription_active: true, spaces_enabled: true, spaces_limit: 2, user_limit: 5, owned_spaces: 1, can_create: true })),
    http.get('*/api/users/settings/api/credentials', () => HttpResponse.json({ data: keys, enabled })),
    http.post('*/api/users/settings/api/credentials', async ({ request }) => {
      const body = (await request.json()) as { name: string };
      calls.push(`POST ${body.name} ${new URL(request.url).search}`);
      const k = { id: 'k2', name: body.name, prefix: KEY.slice(0, 12), created_at: '2026-02-03T10:00:00Z', last_used_at: null, revoked_at: null };
      keys = [k, ...keys];
      return HttpResponse.json({ ...k, key: KEY }, { status: 201 });
    }),
    http.delete('*/api/users/settings/api/credentials/:id', ({ params }) => {
      calls.push(`DELETE ${String(params.id)}`);
      keys = keys.map((k) => (k.id === params.id ? { ...k, revoked_at: '2026-02-03T11:00:00Z' } : k));
      return HttpResponse.json(keys.find((k) => k.id === params.id));
    }),
  );
});

async function section() {
  const heading = await screen.findByRole('heading', { name: 'API keys' });
  return heading.closest('.Polaris-Layout__AnnotatedSection') as HTMLElement;
}

describe('API keys on the account page', () => {
  it('lists the keys with their prefix, never a secret', async () => {
    renderApp({ path: '/account' });
    const s = await section();
    const list = await within(s).findByRole('list', { name: 'API keys' });
    const row = within(list).getByRole('listitem');
    expect(row.textContent).toContain('Production');
    expect(row.textContent).toContain('dsk_abcdefgh…');
    expect(row.textContent).toContain('last used never');
  });

  it('creates a key: a name is required, the key is shown once with a copy button, the list refreshes', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    renderApp({ path: '/account' });
    const s = await section();
    await within(s).findByRole('list', { name: 'API keys' });
    fireEvent.click(within(s).getByRole('button', { name: 'Create key' }));
    expect(await within(s).findByText('Field is required')).toBeTruthy();
    fireEvent.change(within(s).getByLabelText('Key name'), { target: { value: 'CI runner' } });
    fireEvent.click(within(s).getByRole('button', { name: 'Create key' }));
    const shown = await within(s).findByTestId('new-api-key');
    expect(shown.textContent).toBe(KEY);
    expect(calls).toEqual(['POST CI runner ']);
    await waitFor(() => expect(within(within(s).getByRole('list', { name: 'API keys' })).getAllByRole('listitem')).toHaveLength(2));
    fireEvent.click(within(s).getByRole('button', { name: 'Copy' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(KEY));
    // Dismissed, the key is gone for good: the list only has prefixes.
    fireEvent.click(within(s).getByRole('button', { name: 'Dismiss notification' }));
    await waitFor(() => expect(within(s).queryByTestId('new-api-key')).toBeNull());
    expect(s.textContent).not.toContain(KEY);
  });

  it('revokes a key after confirmation', async () => {
    renderApp({ path: '/account' });
    const s = await section();
    fireEvent.click(await within(s).findByRole('button', { name: 'Revoke Production' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke key' }));
    await waitFor(() => expect(calls).toEqual(['DELETE k1']));
    const row = await within(s).findByText('Revoked');
    expect(row).toBeTruthy();
    expect(within(s).queryByRole('button', { name: 'Revoke Production' })).toBeNull();
  });

  it('without the API in the plan: an upgrade banner instead of the form, keys still listed and revocable', async () => {
    enabled = false;
    renderApp({ path: '/account' });
    const s = await section();
    expect(await within(s).findByText('The API is included in Business and above')).toBeTruthy();
    expect(within(s).queryByRole('button', { name: 'Create key' })).toBeNull();
    expect(within(s).getByRole('button', { name: 'Revoke Production' })).toBeTruthy();
  });
});
