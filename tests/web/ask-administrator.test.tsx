// "Ask my administrator" (issue 34, item 11): on a server whose plans and minutes are granted by its administrator
// (the local provider), the plans page and the "Get more minutes" dialog are no dead end: they send the request
// to the staff's support inbox.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { act } from 'react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { getMoreMinutesAtom } from '../../src/lib/state';
import { productsFixture, renderApp, useApi } from './app-harness';
import { server } from './msw';

function captureSupport() {
  const sent: { body: string; page: string }[] = [];
  server.use(
    http.post('*/api/support/messages', async ({ request }) => {
      sent.push((await request.json()) as { body: string; page: string });
      return HttpResponse.json({ thread: null, messages: [] });
    }),
  );
  return sent;
}

describe('Ask my administrator', () => {
  it('on the plans page, sends the plan asked for to the support inbox', async () => {
    useApi({ products: productsFixture({ checkout: 'admin' }) });
    const sent = captureSupport();
    renderApp({ path: '/pricing' });
    const asks = await screen.findAllByRole('button', { name: 'Ask my administrator' });
    expect(asks.length).toBeGreaterThanOrEqual(4);
    expect(screen.queryByRole('button', { name: /^Choose / })).toBeNull();
    await userEvent.click(asks[2]!);
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]!.body).toBe('Please grant me the Creator Pro plan.');
    expect(await screen.findByRole('button', { name: 'Request sent' })).toBeTruthy();
  });

  it('from the minutes balance, in place, says what is left and sends the request', async () => {
    useApi({ products: productsFixture({ checkout: 'admin' }) });
    const sent = captureSupport();
    const app = renderApp({ path: '/spaces/sp-default' });
    await waitFor(() => expect(app.path()).toBe('/spaces/sp-default'));
    act(() => app.store.set(getMoreMinutesAtom, true));
    const dialog = await screen.findByRole('dialog', { name: 'Get more minutes' });
    expect(within(dialog).getByText(/^3 minutes left in /)).toBeTruthy();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Ask my administrator' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]!.body).toMatch(/^Please add minutes to the Teamspace ".+": 3 minutes left\.$/);
    expect(app.path()).toBe('/spaces/sp-default');
  });
});
