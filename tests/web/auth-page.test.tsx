import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { TEXT } from '../../contract/errors';
import { confirmEmailError, emailError, signUpErrors } from '../../src/features/auth/validation';
import { createIdentityProvider } from '../../src/lib/auth/identity';
import { showSnackbar } from '../../src/ui/snackbars';
import { renderApp, useApi, userFixture } from './app-harness';
import { fakeJwt } from './helpers';
import { server } from './msw';

vi.mock('../../src/features/projects', () => ({ ProjectsHome: () => <h1>Projects home page</h1>, FolderPage: () => null }));
vi.mock('../../src/features/editor', () => ({ ProjectPage: () => null }));
vi.mock('../../src/features/spaces', () => ({ TeamspaceSwitcher: () => null, TeamspaceModals: () => null, useOpenTeamspaceDialog: () => () => {} }));

describe('sign-up form rules', () => {
  it('e-mail, confirm e-mail (ignoring case) and password texts', () => {
    expect(emailError('')).toBe(TEXT.fieldRequired);
    expect(emailError('nope')).toBe(TEXT.incorrectEmail);
    expect(emailError('a@b.co')).toBeNull();
    expect(confirmEmailError('Ana@Example.com', 'ana@example.COM')).toBeNull();
    expect(confirmEmailError('ana@example.com', 'ann@example.com')).toBe("Email addresses don't match");
    expect(signUpErrors({ email: 'a@b.co', confirmEmail: 'a@b.co', password: '12345' }).password).toBe('At least 6 characters');
    expect(signUpErrors({ email: 'a@b.co', confirmEmail: 'a@b.co', password: 'with space' }).password).toBe('Incorrect password');
    expect(signUpErrors({ email: 'a@b.co', confirmEmail: 'a@b.co', password: 'пароль123' }).password).toBe('Incorrect password');
    expect(signUpErrors({ email: 'a@b.co', confirmEmail: 'a@b.co', password: 'secret1' })).toEqual({ email: null, confirmEmail: null, password: null });
  });
});

describe('/auth page', () => {
  it('signs up with the identity service, creates the account and lands in My Teamspace', async () => {
    let user: Record<string, unknown> | null = null;
    const access = fakeJwt({ sub: 'idn-1', email: 'new@example.com', provider: 'password', exp: 9_999_999_999 });
    server.use(
      http.get('*/api/auth/oidc/config', () => HttpResponse.json({ enabled: true, providers: [{ id: 'oidc', name: 'Google' }] })),
      http.post('*/api/auth/sign-up', () => HttpResponse.json({ access_token: access, refresh_token: 'refresh-1234567890', expires_in: 900 }, { status: 201 })),
      http.post('*/api/users', async ({ request }) => {
        const body = (await request.json()) as { email: string };
        user = userFixture({ id: 'u9', email: body.email, created_date: '2025-01-01T00:00:00Z' });
        return HttpResponse.json(user, { status: 201 });
      }),
    );
    useApi({});
    server.use(http.get('*/api/users/current', () => (user ? HttpResponse.json(user) : HttpResponse.json({ detail: 'User not found' }, { status: 404 }))));
    window.dataLayer = [];
    const app = renderApp({ path: '/auth?mode=sign-up', provider: createIdentityProvider() });
    const form = await screen.findByRole('form', { name: 'Sign up' });
    const submit = within(form).getByRole('button', { name: 'Create account' });
    expect(submit.hasAttribute('disabled') || submit.getAttribute('aria-disabled') === 'true').toBe(true);
    await screen.findByRole('link', { name: 'Continue with Google' });

    fireEvent.change(within(form).getByLabelText('Email'), { target: { value: 'new@example.com' } });
    fireEvent.change(within(form).getByLabelText('Confirm email'), { target: { value: 'other@example.com' } });
    fireEvent.blur(within(form).getByLabelText('Confirm email'));
    await screen.findByText("Email addresses don't match");
    fireEvent.change(within(form).getByLabelText('Confirm email'), { target: { value: 'NEW@example.com' } });
    fireEvent.change(within(form).getByLabelText('Password'), { target: { value: 'secret-1' } });
    await waitFor(() => expect(submit.hasAttribute('disabled')).toBe(false));
    fireEvent.click(submit);

    await screen.findByRole('heading', { name: 'Projects home page' });
    expect(app.path()).toBe('/spaces/sp-default');
    expect(window.dataLayer).toContainEqual({ event: 'signUpPageShown' });
    expect(window.dataLayer).toContainEqual(expect.objectContaining({ event: 'registration', method: 'password' }));
  });

  it('shows the server text when sign-in fails', async () => {
    server.use(
      http.get('*/api/auth/oidc/config', () => HttpResponse.json({ enabled: false, providers: [] })),
      http.post('*/api/auth/sign-in', () => HttpResponse.json({ detail: 'Incorrect email or password' }, { status: 401 })),
    );
    useApi({});
    renderApp({ path: '/auth', provider: createIdentityProvider() });
    const form = await screen.findByRole('form', { name: 'Sign in' });
    fireEvent.click(within(form).getByRole('button', { name: 'Sign in' }));
    expect((await screen.findAllByText(TEXT.fieldRequired)).length).toBe(2);
    fireEvent.change(within(form).getByLabelText('Email'), { target: { value: 'ana@example.com' } });
    fireEvent.change(within(form).getByLabelText('Password'), { target: { value: 'wrong-pass' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Sign in' }));
    await screen.findByText('Incorrect email or password');
    expect(screen.queryByRole('link', { name: /Continue with/ })).toBeNull();
  });
});

describe('snackbars', () => {
  it('render at the top centre as errors by default and hide after their time', async () => {
    useApi({});
    renderApp({ path: '/spaces/sp-default' });
    await screen.findByRole('heading', { name: 'Projects home page' });
    act(() => void showSnackbar('Could not save', { durationMs: 300 }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Could not save');
    expect(alert.closest('.ds-snackbars')).toBeTruthy();
    expect(alert.closest('.ds-snackbar')!.getAttribute('data-variant')).toBe('error');
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
  });
});
