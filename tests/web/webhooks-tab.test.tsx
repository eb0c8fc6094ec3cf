// The Teamspace dialog's Webhooks tab against msw: owners see it (members do not); adding an endpoint shows its
// signing secret once; a disabled endpoint shows why and can be enabled again; the delivery log shows attempts.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { WebhookEndpoint } from '../../contract/schemas/api';
import { TeamspaceDialog } from '../../src/features/spaces/components/TeamspaceDialog';
import { EDITOR_ID, http, json, limits, renderUi, server, space, spaceSettings, user } from './spaces-render';

function mock(o: { me?: ReturnType<typeof user> } = {}) {
  const s = space();
  let hooks: WebhookEndpoint[] = [
    {
      id: 'w1', space_id: s.id, url: 'https://hooks.example.com/broken', events: ['dub.ready'], description: '', enabled: false,
      disabled_reason: 'Disabled after 20 failed deliveries in a row (last: HTTP 500: boom)', created_at: '2026-01-01T00:00:00Z',
    },
  ];
  const calls: string[] = [];
  server.use(
    http.get('*/api/users/current', () => json(o.me ?? user())),
    http.get('*/api/space/limits', () => json(limits())),
    http.get('*/api/space/list', () => json([s])),
    http.get(`*/api/space/${s.id}`, () => json(s)),
    http.get(`*/api/space/${s.id}/credits`, () => json(s.credits)),
    http.get(`*/api/space/${s.id}/settings`, () => json(spaceSettings())),
    http.get(`*/api/space/${s.id}/webhooks`, () => json({ data: hooks })),
    http.post(`*/api/space/${s.id}/webhooks`, async ({ request }) => {
      const b = (await request.json()) as { url: string; events: WebhookEndpoint['events'] };
      calls.push(`POST ${b.url} ${b.events.join(',')}`);
      const e: WebhookEndpoint = { id: 'w2', space_id: s.id, url: b.url, events: b.events, description: '', enabled: true, disabled_reason: null, created_at: '2026-02-01T00:00:00Z' };
      hooks = [...hooks, e];
      return json({ ...e, secret: 'whsec_c2VjcmV0' }, 201);
    }),
    http.patch(`*/api/space/${s.id}/webhooks/w1`, async ({ request }) => {
      calls.push(`PATCH w1 ${JSON.stringify(await request.json())}`);
      hooks = hooks.map((h) => (h.id === 'w1' ? { ...h, enabled: true, disabled_reason: null } : h));
      return json({ ...hooks[0], secret: 'whsec_x' });
    }),
    http.get(`*/api/space/${s.id}/webhooks/w1/deliveries`, () =>
      json({ data: [{ id: 'd1', event_type: 'dub.ready', state: 'failed', created_at: '2026-01-01T00:00:00Z', next_attempt_at: null, attempts: [{ attempt: 1, status_code: 500, latency_ms: 12, error: 'HTTP 500: boom', created_at: '2026-01-01T00:00:00Z' }] }] }),
    ),
  );
  return { s, calls };
}

describe('Teamspace dialog: Webhooks tab', () => {
  it('owner: adds an endpoint (secret shown once), sees why one was disabled, its deliveries, and enables it again', async () => {
    const { s, calls } = mock();
    renderUi(<TeamspaceDialog open spaceId={s.id} onClose={() => {}} />);
    await screen.findByLabelText('Teamspace name');
    await userEvent.click(screen.getByRole('tab', { name: 'Webhooks' }));
    const list = await screen.findByRole('list', { name: 'Webhook endpoints' });
    const row = (await within(list).findAllByRole('listitem'))[0];
    expect(row.textContent).toContain('Disabled after 20 failed deliveries in a row');
    await userEvent.click(within(row).getByRole('button', { name: 'Deliveries' }));
    const log = await within(row).findByRole('list', { name: 'Deliveries' });
    expect(log.textContent).toContain('Dub ready: failed · 1 attempt, last 500 in 12 ms (HTTP 500: boom)');
    await userEvent.click(within(row).getByRole('button', { name: 'Enable again' }));
    await waitFor(() => expect(calls).toContain('PATCH w1 {"enabled":true}'));
    await waitFor(() => expect(within(row).queryByText('Enable again')).toBeNull());

    await userEvent.type(screen.getByLabelText('Endpoint URL'), 'https://example.com/hook');
    await userEvent.click(screen.getByRole('checkbox', { name: 'Job failed' }));
    await userEvent.click(screen.getByRole('button', { name: 'Add endpoint' }));
    expect((await screen.findByTestId('webhook-secret')).textContent).toBe('whsec_c2VjcmV0');
    expect(calls).toContain('POST https://example.com/hook transcript.ready,dub.ready');
    await waitFor(() => expect(list.querySelectorAll(':scope > [role="listitem"]')).toHaveLength(2));
  });

  it('a member does not see the tab', async () => {
    const { s } = mock({ me: user({ id: EDITOR_ID, email: 'editor@example.com' }) });
    renderUi(<TeamspaceDialog open spaceId={s.id} onClose={() => {}} />);
    await screen.findByText('Team');
    await waitFor(() => expect(screen.getAllByRole('tab')).toHaveLength(1));
    expect(screen.queryByRole('tab', { name: 'Webhooks' })).toBeNull();
  });
});
