// Global effects of API errors (spec section 8), run once per failed request of the http client:
//  - 402 whose detail does not end with 'credits available.' -> paymentRequired, then the buy-minutes modal
//    (active non-enterprise subscriber who can buy minutes, archived subscription), the Unknown Error modal
//    (an enterprise plan exists) or /pricing; a 402 that does end so is reported as 'no credits available';
//  - 400 'Inactive user' -> inactiveUser + the sign-out routine;
//  - 401 -> sign out to /auth keeping the origin;
//  - 409 on POST /users -> log out, clear local storage, reload;
//  - a text starting 'You have no access to this resource' -> refetch the space list;
//  - 403 refusing a feature the plan lacks ({code: 'feature_not_in_plan', feature}) -> that feature's upgrade modal.
// Identity-service calls (/api/auth/*) opt out: a wrong password is not a lost session.
import { TEXT } from '../../contract/errors';
import type { User } from '../../contract/schemas/user';
import { getAuthProvider } from '../lib/auth/active';
import { onApiError, type ApiError } from '../lib/http';
import { currentAppPath } from '../lib/page';
import { paymentContextOf, paymentRequiredAction, type PaymentContext } from '../lib/payment';
import { signOutClearAndReload, signOutToAuth } from '../lib/auth/session';
import { SPACE_LIST_KEY } from '../lib/api/use-spaces';
import { buyMinutesOpenAtom, globalErrorAtom, unknownErrorOpenAtom, upgradeModalAtom } from '../lib/state';
import { FEATURE_KEYS, featureOfRefusal, type FeatureKey } from '../../contract/features';
import type { AppStore } from '../lib/store';

export type ErrorEffect =
  | 'paymentRequired'
  | 'noCredits'
  | 'inactiveUser'
  | 'unauthorized'
  | 'accountConflict'
  | 'refetchSpaces'
  | 'featureRefused';

/** The effects an error calls for (pure). */
export function classifyApiError(err: ApiError): ErrorEffect[] {
  const out: ErrorEffect[] = [];
  if (err.path === 'auth' || err.path.startsWith('auth/')) return out;
  const detail = err.detailText ?? '';
  if (err.status === 402) {
    out.push(detail.trimEnd().endsWith(TEXT.creditsSuffix) ? 'noCredits' : 'paymentRequired');
  }
  if (err.status === 400 && (detail === TEXT.inactiveUser || err.message === TEXT.inactiveUser)) out.push('inactiveUser');
  if (err.status === 401) out.push('unauthorized');
  if (err.status === 409 && err.method === 'POST' && /^users\/?$/.test(err.path)) out.push('accountConflict');
  if (err.message.startsWith(TEXT.noAccess) || detail.startsWith(TEXT.noAccess)) out.push('refetchSpaces');
  if (err.status === 403 && refusedFeature(err)) out.push('featureRefused');
  return out;
}

/** The feature a 403 refuses because the plan lacks it (the body's `feature`, or the refusal text), else null. */
export function refusedFeature(err: ApiError): FeatureKey | null {
  const body = err.body as { code?: unknown; feature?: unknown } | null | undefined;
  if (body && body.code === 'feature_not_in_plan' && (FEATURE_KEYS as readonly unknown[]).includes(body.feature)) return body.feature as FeatureKey;
  return featureOfRefusal(err.detailText);
}

export interface EffectDeps {
  store: AppStore;
  /** The signed-in user when known (SWR cache). */
  getUser(): User | null | undefined;
  /** Revalidates an SWR key. */
  revalidate(key: string): void;
  /** In-app navigation (router), with history state. */
  navigate(to: string, state?: unknown): void;
  /** Payment context (billing may provide a richer one). */
  paymentContext?(user: User | null | undefined): PaymentContext;
  signOutToAuth?: typeof signOutToAuth;
  signOutClearAndReload?: typeof signOutClearAndReload;
  report?: (message: string, err: ApiError) => void;
}

let signingOut = false;

/** Runs the effects of one error. */
export function applyErrorEffects(err: ApiError, deps: EffectDeps): ErrorEffect[] {
  const effects = classifyApiError(err);
  const signOut = deps.signOutToAuth ?? signOutToAuth;
  const clearAndReload = deps.signOutClearAndReload ?? signOutClearAndReload;
  const report = deps.report ?? ((m: string) => console.info(m));
  for (const effect of effects) {
    switch (effect) {
      case 'noCredits':
        report(TEXT.noCredits, err);
        break;
      case 'paymentRequired': {
        deps.store.set(globalErrorAtom, 'paymentRequired');
        const user = deps.getUser();
        const action = paymentRequiredAction((deps.paymentContext ?? paymentContextOf)(user));
        if (action === 'buyMinutes') deps.store.set(buyMinutesOpenAtom, true);
        else if (action === 'unknownError') deps.store.set(unknownErrorOpenAtom, true);
        else deps.navigate('/pricing', { from: currentAppPath() });
        break;
      }
      case 'inactiveUser':
        deps.store.set(globalErrorAtom, 'inactiveUser');
        if (!signingOut) {
          signingOut = getAuthProvider()?.kind !== 'embedded';
          void signOut({ notice: TEXT.inactiveUser });
        }
        break;
      case 'unauthorized':
        if (!signingOut) {
          signingOut = getAuthProvider()?.kind !== 'embedded';
          void signOut({ origin: currentAppPath() });
        }
        break;
      case 'accountConflict':
        if (!signingOut) {
          signingOut = true;
          void clearAndReload();
        }
        break;
      case 'refetchSpaces':
        deps.revalidate(SPACE_LIST_KEY);
        break;
      case 'featureRefused':
        deps.store.set(upgradeModalAtom, { feature: refusedFeature(err)! });
        break;
    }
  }
  return effects;
}

/** Subscribes the effects to every API error; returns the unsubscribe function. */
export function installErrorEffects(deps: EffectDeps): () => void {
  return onApiError(({ error }) => {
    applyErrorEffects(error, deps);
  });
}

/** Test hook: forget that a sign-out is under way. @internal */
export function resetErrorEffectsState(): void {
  signingOut = false;
}
