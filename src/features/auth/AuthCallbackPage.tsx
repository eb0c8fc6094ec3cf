// /auth/callback: the end of the OIDC redirect. Stores the session carried in the URL fragment and goes back
// to where the user started (origin), or shows why it failed.
import { Banner, BlockStack, Button, Card, Page } from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { analytics } from '../../lib/analytics';
import { isIdentityProvider } from '../../lib/auth/types';
import { SpinnerPage } from '../../ui/spinner-page';
import { useAuth } from '../../lib/auth/context';

/** The fragment already handled (effects can run twice in development). */
let handled: { hash: string; result: { origin: string } | { error: string } } | null = null;

export default function AuthCallbackPage() {
  const auth = useAuth();
  const [, navigate] = useLocation();
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!isIdentityProvider(auth)) {
      navigate('/', { replace: true });
      return;
    }
    const hash = window.location.hash;
    if (!handled || (hash !== '' && hash !== handled.hash)) {
      // The tokens must not stay in the address bar or the history.
      window.history.replaceState(window.history.state, '', window.location.pathname);
      try {
        const origin = auth.completeOidcCallback(hash);
        analytics.login('oidc');
        handled = { hash, result: { origin } };
      } catch (e) {
        handled = { hash, result: { error: e instanceof Error ? e.message : String(e) } };
      }
    }
    const result = handled.result;
    if ('origin' in result) navigate(result.origin, { replace: true });
    else setError(result.error);
  }, [auth, navigate]);

  if (!error) return <SpinnerPage label="Signing in" />;
  return (
    <Page narrowWidth title="Sign-in failed">
      <Card>
        <BlockStack gap="400">
          <Banner tone="critical">{error}</Banner>
          <Button variant="primary" onClick={() => navigate('/auth', { replace: true })}>
            Back to sign in
          </Button>
        </BlockStack>
      </Card>
    </Page>
  );
}
