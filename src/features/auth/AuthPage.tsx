// /auth: sign in and sign up with the identity service (e-mail + password, OIDC when configured).
// Signed-out users arrive here with ?origin=<path> and go back there after signing in.
import { Banner, BlockStack, Box, Button, Card, Divider, FormLayout, InlineStack, Tabs, Text, TextField } from '@shopify/polaris';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import useSWR from 'swr';
import { Redirect, useLocation, useSearch } from 'wouter';
import { analytics } from '../../lib/analytics';
import { safeOrigin } from '../../lib/auth/identity';
import { isIdentityProvider, type IdentityAuthProvider } from '../../lib/auth/types';
import { errorMessage } from '../../lib/http';
import { session, STORAGE_KEYS } from '../../lib/storage';
import { useAuth, useIsAuthenticated } from '../../lib/auth/context';
import { isWhiteLabelBuild } from '../../lib/environments';
import { useSettings } from '../../lib/api/use-settings';
import { languagesClaim } from '../../lib/claims';
import { signInErrors, signUpErrors } from './validation';

type Mode = 'sign-in' | 'sign-up';

export default function AuthPage() {
  const auth = useAuth();
  const authed = useIsAuthenticated();
  const search = useSearch();
  const params = useMemo(() => new URLSearchParams(search), [search]);
  const origin = safeOrigin(params.get('origin'));
  if (authed || !isIdentityProvider(auth)) return <Redirect to={origin} replace />;
  return <AuthForms auth={auth} origin={origin} initialMode={params.get('mode') === 'sign-up' ? 'sign-up' : 'sign-in'} />;
}

function AuthForms({ auth, origin, initialMode }: { auth: IdentityAuthProvider; origin: string; initialMode: Mode }) {
  const [mode, setMode] = useState<Mode>(initialMode);
  const [notice] = useState(() => {
    const n = session.getString(STORAGE_KEYS.authNotice);
    session.remove(STORAGE_KEYS.authNotice);
    return n;
  });
  const whiteLabel = isWhiteLabelBuild();
  const { settings } = useSettings();

  useEffect(() => {
    if (mode === 'sign-up') analytics.signUpPageShown();
  }, [mode]);

  const tabs = [
    { id: 'sign-in', content: 'Sign in', panelID: 'auth-sign-in' },
    { id: 'sign-up', content: 'Sign up', panelID: 'auth-sign-up' },
  ];

  return (
    <div className="ds-auth">
      {!whiteLabel ? (
        <section className="ds-auth__pitch" aria-label="About">
          <BlockStack gap="300">
            <Text as="p" variant="headingSm" tone="subdued">
              Dubbing Studio
            </Text>
            <Text as="h2" variant="heading2xl">
              {languagesClaim(settings?.languages.translation.length).replace(/\.$/, '')}
            </Text>
            <Text as="p" variant="bodyLg">
              Transcript, translation, dubbed voices and subtitles in one editor. Pay only $1.5 per minute on our cheaper plans.
            </Text>
          </BlockStack>
        </section>
      ) : null}
      <section className="ds-auth__panel">
        <Card>
          <BlockStack gap="400">
            <Text as="h1" variant="headingLg">
              {mode === 'sign-in' ? 'Sign in to your account' : 'Create your account'}
            </Text>
            {notice ? (
              <Banner tone="critical" title={notice}>
                <Text as="p">Your account is not active. Contact support to restore access.</Text>
              </Banner>
            ) : null}
            <Tabs tabs={tabs} selected={mode === 'sign-in' ? 0 : 1} onSelect={(i) => setMode(i === 0 ? 'sign-in' : 'sign-up')} fitted />
            {mode === 'sign-in' ? <SignInForm auth={auth} origin={origin} /> : <SignUpForm auth={auth} origin={origin} />}
            <OidcButtons auth={auth} origin={origin} />
          </BlockStack>
        </Card>
      </section>
    </div>
  );
}

function useSubmit(origin: string) {
  const [, navigate] = useLocation();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run(work: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await work();
      navigate(origin, { replace: true });
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  }
  return { busy, error, run };
}

function SignInForm({ auth, origin }: { auth: IdentityAuthProvider; origin: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState({ email: false, password: false });
  const errors = signInErrors({ email, password });
  const valid = !errors.email && !errors.password;
  const { busy, error, run } = useSubmit(origin);

  function submit(e?: FormEvent) {
    e?.preventDefault();
    setTouched({ email: true, password: true });
    if (!valid || busy) return;
    void run(async () => {
      await auth.signIn(email.trim(), password);
      analytics.login('password');
    });
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Sign in">
      <FormLayout>
        {error ? <Banner tone="critical">{error}</Banner> : null}
        <TextField
          label="Email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={setEmail}
          onBlur={() => setTouched((t) => ({ ...t, email: true }))}
          error={touched.email ? (errors.email ?? undefined) : undefined}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
          onBlur={() => setTouched((t) => ({ ...t, password: true }))}
          error={touched.password ? (errors.password ?? undefined) : undefined}
        />
        <Button submit variant="primary" fullWidth loading={busy} disabled={busy}>
          Sign in
        </Button>
      </FormLayout>
    </form>
  );
}

function SignUpForm({ auth, origin }: { auth: IdentityAuthProvider; origin: string }) {
  const [values, setValues] = useState({ email: '', confirmEmail: '', password: '' });
  const [touched, setTouched] = useState({ email: false, confirmEmail: false, password: false });
  const errors = signUpErrors(values);
  const valid = !errors.email && !errors.confirmEmail && !errors.password;
  const { busy, error, run } = useSubmit(origin);
  const field = (k: keyof typeof values) => ({
    value: values[k],
    onChange: (val: string) => setValues((v) => ({ ...v, [k]: val })),
    onBlur: () => setTouched((t) => ({ ...t, [k]: true })),
    error: touched[k] ? (errors[k] ?? undefined) : undefined,
  });

  function submit(e?: FormEvent) {
    e?.preventDefault();
    setTouched({ email: true, confirmEmail: true, password: true });
    if (!valid || busy) return;
    void run(() => auth.signUp(values.email.trim(), values.password));
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Sign up">
      <FormLayout>
        {error ? <Banner tone="critical">{error}</Banner> : null}
        <TextField label="Email" type="email" autoComplete="email" {...field('email')} />
        <TextField label="Confirm email" type="email" autoComplete="off" {...field('confirmEmail')} />
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          helpText="At least 6 characters, no spaces"
          {...field('password')}
        />
        <Button submit variant="primary" fullWidth loading={busy} disabled={!valid || busy}>
          Create account
        </Button>
      </FormLayout>
    </form>
  );
}

function OidcButtons({ auth, origin }: { auth: IdentityAuthProvider; origin: string }) {
  const { data } = useSWR('auth:oidc-config', () => auth.getOidcConfig(), { shouldRetryOnError: false, revalidateOnFocus: false });
  if (!data?.enabled || data.providers.length === 0) return null;
  return (
    <BlockStack gap="300">
      <InlineStack gap="200" blockAlign="center" wrap={false}>
        <div style={{ flex: 1 }}>
          <Divider />
        </div>
        <Text as="span" tone="subdued" variant="bodySm">
          or
        </Text>
        <div style={{ flex: 1 }}>
          <Divider />
        </div>
      </InlineStack>
      {data.providers.map((p) => (
        <Box key={p.id}>
          <Button fullWidth url={auth.oidcStartUrl(origin, p.id)}>
            {`Continue with ${p.name}`}
          </Button>
        </Box>
      ))}
    </BlockStack>
  );
}
