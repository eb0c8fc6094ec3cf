// Routes of spec section 2. Pages load lazily (route-level code splitting).
//   /auth, /auth/callback                      sign-in (signed-out users land here with ?origin=)
//   /                                          -> first space
//   /spaces/:spaceId                           home: translation list (?page, ?searchText)
//   /spaces/:spaceId/voices | glossaries | folders/:folderId | project/:projectId
//   /project/:id, /voices, /glossaries, /folders/:id  -> the same page in the first space
//   /join/:token                               an invite link (joins the space, opens it)
//   /pricing, /checkout, /account, /admin (customers default; feedback; survey; hidden homepage)
//   anything else                              not-found page
// A space the user may not access redirects home; superusers may enter any space.
import { useAtom } from 'jotai';
import { lazy, Suspense, useEffect, useLayoutEffect, type ReactNode } from 'react';
import { Redirect, Route, Switch, useLocation, useParams, useSearch } from 'wouter';
import { useCurrentUser } from '../lib/api/use-current-user';
import { SpinnerPage } from '../ui/spinner-page';
import { AppShell } from './shell';
import { NotFoundPage } from './not-found';
import { RequireSession } from './session-gate';
import { takePaymentMarkers } from './payment-return';
import { firstSpace, useSpaces } from '../lib/api/use-spaces';
import { currentSpaceIdAtom } from '../lib/state';

const AuthPage = lazy(() => import('../features/auth/AuthPage'));
const AuthCallbackPage = lazy(() => import('../features/auth/AuthCallbackPage'));
const AccountPage = lazy(() => import('../features/account/AccountPage'));
const AdminPage = lazy(() => import('../features/admin/AdminPage'));
const PricingPage = lazy(() => import('../features/billing/PricingPage'));
const CheckoutPage = lazy(() => import('../features/billing/CheckoutPage'));
const ApiKeysSection = lazy(() => import('../features/api-keys/ApiKeysSection').then((m) => ({ default: m.ApiKeysSection })));
const SubscriptionSection = lazy(() => import('../features/billing/SubscriptionSection').then((m) => ({ default: m.SubscriptionSection })));
const GlossariesPage = lazy(() => import('../features/glossaries/GlossariesPage'));
const VoicesPage = lazy(() => import('../features/voices/VoicesPage'));
const ProjectsHome = lazy(() => import('../features/projects').then((m) => ({ default: m.ProjectsHome })));
const DemoView = lazy(() => import('../features/onboarding/DemoView').then((m) => ({ default: m.DemoView })));
const FolderPage = lazy(() => import('../features/projects').then((m) => ({ default: m.FolderPage })));
const ProjectPage = lazy(() => import('../features/editor').then((m) => ({ default: m.ProjectPage })));
const BatchPage = lazy(() => import('../features/projects/batches/BatchPage'));
const BatchDialog = lazy(() => import('../features/projects/batches/BatchDialog').then((m) => ({ default: m.BatchDialog })));
const JoinPage = lazy(() => import('../features/spaces').then((m) => ({ default: m.JoinPage })));

export function AppRoutes() {
  return (
    <Suspense fallback={<SpinnerPage />}>
      <Switch>
        <Route path="/auth/callback" component={AuthCallbackPage} />
        <Route path="/auth" component={AuthPage} />
        <Route>
          <RequireSession>
            <AppShell>
              <Suspense fallback={<SpinnerPage />}>
                <ShellRoutes />
              </Suspense>
            </AppShell>
          </RequireSession>
        </Route>
      </Switch>
    </Suspense>
  );
}

function ShellRoutes() {
  return (
    <Switch>
      <Route path="/">
        <ToFirstSpace />
      </Route>
      <Route path="/spaces/:spaceId">
        <SpaceScope>
          <ProjectsHome
            top={<Suspense fallback={null}><DemoView /></Suspense>}
            batch={(o) => (o.open ? <Suspense fallback={null}><BatchDialog {...o} /></Suspense> : null)}
          />
        </SpaceScope>
      </Route>
      <Route path="/spaces/:spaceId/voices">
        <SpaceScope>
          <VoicesPage />
        </SpaceScope>
      </Route>
      <Route path="/spaces/:spaceId/glossaries">
        <SpaceScope>
          <GlossariesPage />
        </SpaceScope>
      </Route>
      <Route path="/spaces/:spaceId/folders/:folderId">
        <SpaceScope>
          <FolderPage />
        </SpaceScope>
      </Route>
      <Route path="/spaces/:spaceId/project/:projectId">
        <SpaceScope>
          <ProjectPage />
        </SpaceScope>
      </Route>
      <Route path="/spaces/:spaceId/batch/:batchId">
        <SpaceScope>
          <BatchPage />
        </SpaceScope>
      </Route>
      <Route path="/batch/:batchId">{(p) => <ToFirstSpace sub={`/batch/${encodeURIComponent(p.batchId)}`} />}</Route>
      <Route path="/project/:projectId">{(p) => <ToFirstSpace sub={`/project/${encodeURIComponent(p.projectId)}`} />}</Route>
      <Route path="/folders/:folderId">{(p) => <ToFirstSpace sub={`/folders/${encodeURIComponent(p.folderId)}`} />}</Route>
      <Route path="/voices">
        <ToFirstSpace sub="/voices" />
      </Route>
      <Route path="/glossaries">
        <ToFirstSpace sub="/glossaries" />
      </Route>
      <Route path="/join/:token" component={JoinPage} />
      <Route path="/pricing" component={PricingPage} />
      <Route path="/checkout" component={CheckoutPage} />
      <Route path="/account">
        <AccountPage billing={<SubscriptionSection />} apiKeys={<ApiKeysSection />} />
      </Route>
      <Route path="/admin">
        <AdminPage section="customers" />
      </Route>
      <Route path="/admin/customers">
        <AdminPage section="customers" />
      </Route>
      <Route path="/admin/feedback">
        <AdminPage section="feedback" />
      </Route>
      <Route path="/admin/survey">
        <AdminPage section="survey" />
      </Route>
      <Route path="/admin/support">
        <AdminPage section="support" />
      </Route>
      <Route path="/admin/homepage">
        <AdminPage section="homepage" />
      </Route>
      <Route>
        <NotFoundPage />
      </Route>
    </Switch>
  );
}

/**
 * Redirects to the first space (the default one), keeping a sub-path and the query. It navigates whenever it is
 * shown (not once per mount): another navigation in the same moment (the payment return cleaning its flag) can
 * never leave the page on "/" with nothing in it; meanwhile a spinner shows.
 */
export function ToFirstSpace({ sub = '' }: { sub?: string }) {
  const { data: spaces } = useSpaces();
  const search = useSearch();
  const [location, navigate] = useLocation();
  const first = firstSpace(spaces);
  // Payment return flags are the app's (src/app/payment-return.tsx reads them once): not carried along, so the
  // two navigations can never put one back after it was taken away.
  const query = takePaymentMarkers(search).rest;
  const target = first ? `/spaces/${encodeURIComponent(first.id)}${sub}${query ? `?${query}` : ''}` : null;
  useEffect(() => {
    if (target) navigate(target, { replace: true });
  }, [target, location, navigate]);
  if (!first) return <NotFoundPage />;
  return <SpinnerPage />;
}

/** Whether the user may open a space: a member of an active space (owners also of an inactive one), or a superuser. */
export function canAccessSpace(
  spaceId: string,
  spaces: { id: string; is_active: boolean; owner_id: string }[] | undefined,
  user: { id: string; is_superuser: boolean } | undefined,
): boolean {
  if (user?.is_superuser) return true;
  const space = spaces?.find((s) => s.id === spaceId);
  if (!space) return false;
  return space.is_active || space.owner_id === user?.id;
}

/**
 * Makes the route's space current (settings, the switcher) and sends others home. The page renders at once: the
 * API client reads the space of a /spaces/:id URL itself (src/app/providers.tsx), so nothing waits for the atom
 * (waiting for it left the page blank when the update raced the first render).
 */
function SpaceScope({ children }: { children: ReactNode }) {
  const { spaceId } = useParams<{ spaceId: string }>();
  const { data: spaces } = useSpaces();
  const { data: user } = useCurrentUser();
  const [current, setCurrent] = useAtom(currentSpaceIdAtom);
  const allowed = canAccessSpace(spaceId, spaces, user);
  useLayoutEffect(() => {
    if (allowed && current !== spaceId) setCurrent(spaceId);
  }, [allowed, current, spaceId, setCurrent]);
  if (!allowed) return <Redirect to="/" replace />;
  // Its own boundary: a lazy page suspending must not hold back this component's commit (and the effect above).
  return <Suspense fallback={<SpinnerPage />}>{children}</Suspense>;
}
