// The confirm-email dialog and the confirmation link on the account page: two fields equal ignoring case
// ('Email addresses don't match'), submit disabled until valid, the link e-mailed (the page says so and shows the
// change waiting); following the link (?confirm_email=) changes the e-mail or says clearly why not.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { validateEmailForm } from '../../src/features/account/ConfirmEmailDialog';
import { renderApp, useApi, userFixture } from './app-harness';
import { server } from './msw';

vi.setConfig({ testTimeout: 20_000 });

let posted: unknown[];
let pending: string | null;

beforeEach(() => {
  posted = [];
  pending = null;
  useApi({ user: userFixture({ email_type: 'password' }) });
  server.use(
    http.get('*/api/space/limits', () => HttpResponse.json({ plan: 'trial', subscription_active: false, spaces_enabled: false, spaces_limit: 0, user_limit: 0, owned_spaces: 1, can_create: false })),
    http.get('*/api/users/settings/api/credentials', () => HttpResponse.json({ data: [], enabled: false })),
    http.get('*/api/users/current/email', () => HttpResponse.json({ pending_email: pending, expires_at: pending ? '2026-11-25T13:00:00Z' : null, sent: false })),
  );
});

describe('validation', () => {
  it('equal ignoring case, valid, and not the current e-mail', () => {
    expect(validateEmailForm({ email: '', confirm: '' })).toEqual({ email: null, confirm: null, valid: false });
    expect(validateEmailForm({ email: 'new@example.com', confirm: '' }).valid).toBe(false);
    expect(validateEmailForm({ email: 'new@example.com', confirm: 'New@Example.COM' })).toEqual({ email: null, confirm: null, valid: true });
    expect(validateEmailForm({ email: 'new@example.com', confirm: 'new@example.org' })).toEqual({ email: null, confirm: "Email addresses don't match", valid: false });
    expect(validateEmailForm({ email: 'nope', confirm: 'nope' })).toEqual({ email: 'Incorrect email', confirm: null, valid: false });
    expect(validateEmailForm({ email: 'ANA@example.com', confirm: 'ana@example.com' }, 'ana@example.com').valid).toBe(false);
  });
});

async function openDialog() {
  renderApp({ path: '/account' });
  fireEvent.click(await screen.findByRole('button', { name: 'Change' }));
  return screen.findByRole('dialog', { name: 'Change your e-mail' });
}

describe('the confirm-email dialog', () => {
  it('keeps submit disabled until both fields hold the same valid e-mail (ignoring case), then sends the link', async () => {
    server.use(
      http.post('*/api/users/current/email', async ({ request }) => {
        posted.push(await request.json());
        pending = 'new@example.com';
        return HttpResponse.json({ pending_email: 'new@example.com', expires_at: '2026-11-25T13:00:00Z', sent: true }, { status: 202 });
      }),
    );
    const dialog = await openDialog();
    const submit = within(dialog).getByRole('button', { name: 'Send confirmation link' });
    const email = within(dialog).getByLabelText('New e-mail');
    const confirm = within(dialog).getByLabelText('Confirm new e-mail');
    expect(submit.getAttribute('aria-disabled')).toBe('true');
    fireEvent.change(email, { target: { value: 'new@example.com' } });
    fireEvent.change(confirm, { target: { value: 'new@example.org' } });
    expect(await within(dialog).findByText("Email addresses don't match")).toBeTruthy();
    expect(submit.getAttribute('aria-disabled')).toBe('true');
    fireEvent.click(submit);
    expect(posted).toHaveLength(0);
    fireEvent.change(confirm, { target: { value: 'NEW@example.com' } });
    await waitFor(() => expect(within(dialog).queryByText("Email addresses don't match")).toBeNull());
    await waitFor(() => expect(submit.getAttribute('aria-disabled')).not.toBe('true'));
    fireEvent.click(submit);
    await waitFor(() => expect(posted).toEqual([{ email: 'new@example.com', confirm_email: 'NEW@example.com' }]));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Change your e-mail' })).toBeNull());
    expect(await screen.findByText('Confirmation link sent to new@example.com')).toBeTruthy();
    expect(await screen.findByText(/Waiting for confirmation: we sent a link to new@example.com/)).toBeTruthy();
    // The e-mail itself is unchanged until the link is followed.
    expect(screen.getAllByText('ana@example.com').length).toBeGreaterThan(0);
  });

  it('an invalid e-mail says so; a server refusal shows in the dialog and nothing is lost', async () => {
    server.use(http.post('*/api/users/current/email', () => HttpResponse.json({ detail: 'An account with this email already exists' }, { status: 409 })));
    const dialog = await openDialog();
    const email = within(dialog).getByLabelText('New e-mail');
    fireEvent.change(email, { target: { value: 'not-an-email' } });
    fireEvent.blur(email);
    expect(await within(dialog).findByText('Incorrect email')).toBeTruthy();
    fireEvent.change(email, { target: { value: 'taken@example.com' } });
    fireEvent.change(within(dialog).getByLabelText('Confirm new e-mail'), { target: { value: 'taken@example.com' } });
    const submit = within(dialog).getByRole('button', { name: 'Send confirmation link' });
    await waitFor(() => expect(submit.getAttribute('aria-disabled')).not.toBe('true'));
    fireEvent.click(submit);
    expect(await within(dialog).findByText('An account with this email already exists')).toBeTruthy();
    expect((within(dialog).getByLabelText('New e-mail') as HTMLInputElement).value).toBe('taken@example.com');
  });

  it('accounts signing in with another service have no Change button', async () => {
    useApi({ user: userFixture({ email_type: 'oidc' }) });
    renderApp({ path: '/account' });
    await screen.findByRole('heading', { name: 'Profile' });
    expect(screen.queryByRole('button', { name: 'Change' })).toBeNull();
  });
});

describe('the confirmation link', () => {
  it('changes the e-mail and says so; the token leaves the address bar', async () => {
    const tokens: string[] = [];
    server.use(
      http.post('*/api/users/current/email/confirm', async ({ request }) => {
        tokens.push(((await request.json()) as { token: string }).token);
        return HttpResponse.json(userFixture({ email_type: 'password', email: 'new@example.com' }));
      }),
    );
    const app = renderApp({ path: '/account?confirm_email=tok-123' });
    expect(await screen.findByText('Your e-mail is now new@example.com. Sign in with it from now on.')).toBeTruthy();
    expect(tokens).toEqual(['tok-123']);
    await waitFor(() => expect(app.path()).toBe('/account'));
  });

  it('an expired or used link is a clear error and changes nothing', async () => {
    server.use(
      http.post('*/api/users/current/email/confirm', () =>
        HttpResponse.json({ detail: 'This confirmation link has expired: change your e-mail again to get a new link' }, { status: 410 }),
      ),
    );
    renderApp({ path: '/account?confirm_email=old' });
    expect(await screen.findByText('The e-mail was not changed')).toBeTruthy();
    expect(screen.getByText('This confirmation link has expired: change your e-mail again to get a new link')).toBeTruthy();
    expect(screen.getAllByText('ana@example.com').length).toBeGreaterThan(0);
  });
});
