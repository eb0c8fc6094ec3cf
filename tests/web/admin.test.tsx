import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import type { AdminUser } from '../../contract/schemas/user';
import { renderApp, useApi, userFixture } from './app-harness';
import { server } from './msw';

vi.mock('../../src/features/projects', () => ({ ProjectsHome: () => <h1>Projects home page</h1>, FolderPage: () => null }));
vi.mock('../../src/features/editor', () => ({ ProjectPage: () => null }));
vi.mock('../../src/features/spaces', () => ({
  TeamspaceSwitcher: () => null,
  TeamspaceModals: () => null,
  useOpenTeamspaceDialog: () => () => {},
}));

function customer(o: Partial<AdminUser> = {}): AdminUser {
  return {
    id: 'u-2', email: 'bob@example.com', email_type: 'password', is_active: true, is_superuser: false,
    created_date: '2026-11-01T10:00:00Z', plan: 'trial', plan_name: 'Free Plan', subscription: null,
    minutes: { total: 3, used: 0 }, ...o,
  };
}

describe('admin customers: granting a plan', () => {
  it('PATCHes the chosen plan and shows the refreshed row', async () => {
    let row = customer();
    const patches: unknown[] = [];
    server.use(
      http.get('*/api/admin/users', () => HttpResponse.json([row])),
      http.patch('*/api/admin/users/:id', async ({ request, params }) => {
        const body = (await request.json()) as { plan: AdminUser['plan'] };
        patches.push({ id: params.id, body });
        row = customer({ plan: body.plan, plan_name: 'Business', minutes: { total: 2003, used: 0 } });
        return HttpResponse.json(row);
      }),
    );
    useApi({ user: userFixture({ is_superuser: true }) });
    renderApp({ path: '/admin' });
    const select = (await screen.findByLabelText('Plan of bob@example.com')) as HTMLSelectElement;
    expect(select.value).toBe('trial');
    fireEvent.change(select, { target: { value: 'business' } });
    await waitFor(() => expect(patches).toEqual([{ id: 'u-2', body: { plan: 'business' } }]));
    await waitFor(() => expect(screen.getByText('0 / 2003')).toBeTruthy());
    expect(((await screen.findByLabelText('Plan of bob@example.com')) as HTMLSelectElement).value).toBe('business');
  });

  it('reports a refused grant and keeps the row as it was', async () => {
    server.use(
      http.get('*/api/admin/users', () => HttpResponse.json([customer()])),
      http.patch('*/api/admin/users/:id', () => HttpResponse.json({ detail: 'Superuser required' }, { status: 403 })),
    );
    useApi({ user: userFixture({ is_superuser: true }) });
    renderApp({ path: '/admin' });
    const select = (await screen.findByLabelText('Plan of bob@example.com')) as HTMLSelectElement;
    fireEvent.change(select, { target: { value: 'starter' } });
    await screen.findByText('Superuser required');
    const table = screen.getByRole('table');
    expect(within(table).getByText('0 / 3')).toBeTruthy();
    expect(((await screen.findByLabelText('Plan of bob@example.com')) as HTMLSelectElement).value).toBe('trial');
  });
});
