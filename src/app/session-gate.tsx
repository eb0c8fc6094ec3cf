// The signed-in part of the app: signed-out users go to /auth keeping where they came from; a new identity gets
// its product account (POST /api/users when GET /api/users/current says 404 'User not found'); the shell waits
// for the user and the space list.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useSWRConfig } from 'swr';
import { Redirect, useLocation, useSearch } from 'wouter';
import { TEXT } from '../../contract/errors';
import type { User } from '../../contract/schemas/user';
import { createAccount } from '../features/account/api';
import { CURRENT_USER_KEY, useCurrentUser } from '../lib/api/use-current-user';
import { analytics, identify, startTagManager } from '../lib/analytics';
import { productAnalyticsFromEnv } from '../lib/product-analytics';
import { sessionReplayFromEnv } from '../lib/session-replay';

// The analytics sinks, each on only when the build configures it: the tag manager (VITE_TAG_MANAGER_ID), product
// analytics (VITE_PRODUCT_ANALYTICS_URL) and session replay (VITE_SESSION_REPLAY_URL, 1% of sessions).
const buildEnv = import.meta.env as Record<string, string | undefined>;
startTagManager(buildEnv);
const productAnalytics = productAnalyticsFromEnv(buildEnv);
const sessionReplay = sessionReplayFromEnv(buildEnv);
import { decodeJwtPayload } from '../lib/auth/jwt';
import { errorMessage, type ApiError } from '../lib/http';
import { GenericErrorPage } from '../ui/error-page';
import { SpinnerPage } from '../ui/spinner-page';
import { useAuth, useIsAuthenticated } from '../lib/auth/context';
import { PaymentReturn } from './payment-return';
import { SPACE_LIST_KEY, useSpaces } from '../lib/api/use-spaces';

/** Referral id from the affiliate script (window.Rewardful / window.rewardful), when present. */
export function readReferralId(): string | null {
  const w = window as unknown as { Rewardful?: { referral?: unknown }; rewardful?: unknown };
  // No affiliate script is the normal case on an install without one: no referral id, and nothing to report.
  if (!w.Rewardful && !w.rewardful) return null;
  const ref = w.Rewardful?.referral;
  return typeof ref === 'string' && ref !== '' ? ref : null;
}

export function RequireSession({ children }: { children: ReactNode }) {
  const authed = useIsAuthenticated();
  const [location] = useLocation();
  const search = useSearch();
  if (!authed) {
    const origin = `${location}${search ? `?${search}` : ''}`;
    const q = origin !== '/' ? `?origin=${encodeURIComponent(origin)}` : '';
    return <Redirect to={`/auth${q}`} replace />;
  }
  return <AccountBootstrap>{children}</AccountBootstrap>;
}

function isUserNotFound(e: ApiError | undefined): boolean {
  return !!e && e.status === 404;
}

function AccountBootstrap({ children }: { children: ReactNode }) {
  const auth = useAuth();
  const { mutate } = useSWRConfig();
  const user = useCurrentUser();
  const spaces = useSpaces(!!user.data);
  const [createError, setCreateError] = useState<string | null>(null);
  const creating = useRef(false);

  useEffect(() => {
    if (!isUserNotFound(user.error) || creating.current) return;
    creating.current = true;
    void (async () => {
      try {
        const email = auth.getEmail();
        if (!email) throw new Error('The session carries no e-mail address to create the account with.');
        const created: User = await createAccount({ email, referral_id: readReferralId(), token: await auth.getToken() });
        const token = await auth.getToken();
        const provider = token ? decodeJwtPayload(token)?.provider : null;
        analytics.registration(auth.kind === 'embedded' ? 'embedded' : provider === 'password' ? 'password' : 'oidc');
        await mutate(CURRENT_USER_KEY, created, { revalidate: false });
        await mutate(SPACE_LIST_KEY);
      } catch (e) {
        // 409 is handled globally (sign out, clear storage, reload).
        setCreateError(errorMessage(e));
      } finally {
        creating.current = false;
      }
    })();
  }, [user.error, auth, mutate]);

  useEffect(() => {
    if (user.data) identify(user.data.id);
    if (user.data) productAnalytics?.identify({ id: user.data.id, email: user.data.email, email_type: user.data.email_type });
    if (user.data) sessionReplay?.identify({ id: user.data.id, email: user.data.email, email_type: user.data.email_type });
  }, [user.data]);

  if (createError) return <GenericErrorPage detail={createError} />;
  if (user.error && !isUserNotFound(user.error)) {
    // 401 and 'Inactive user' sign out globally; show the spinner meanwhile. Inside the platform's admin there is
    // no sign-in page to go to: a refused session token is shown (e.g. 'Invalid token').
    const signsOut = user.error.status === 401 || (user.error.status === 400 && user.error.message === TEXT.inactiveUser);
    if (signsOut && auth.kind !== 'embedded') return <SpinnerPage />;
    return <GenericErrorPage detail={user.error.message} />;
  }
  if (spaces.error) return <GenericErrorPage detail={spaces.error.message} />;
  if (!user.data || !spaces.data) return <SpinnerPage />;
  return (
    <>
      <PaymentReturn />
      {children}
    </>
  );
}
