// Analytics: typed events through one bus to sinks that are all off by default (spec sections 1, 7 and 9):
//  - the tag-manager data layer (window.dataLayer): on when the build names a container (VITE_TAG_MANAGER_ID,
//    loaded by startTagManager) or the host page already has a data layer of its own; otherwise nothing is pushed;
//  - the product-analytics sink (src/lib/product-analytics.ts) and session replay (src/lib/session-replay.ts),
//    each on only when the build gives it an endpoint.
// Nothing functional depends on them: every failure is swallowed. localStorage 'analytics_debug' logs events.
import { analyticsDurationMin } from '../../contract/constants';
import { local, STORAGE_KEYS } from './storage';

export interface SubscriptionGroup {
  hasActiveSubscription: boolean;
  hasTrialPlan: boolean;
  /** Plan name plus 'Monthly' or 'Annually'. */
  subscription: string;
}

export interface ProjectAnalytics {
  dictionary: boolean;
  dstLang: string;
  durationMin: number | 'NA';
  isSrtUploaded: boolean;
  locProjectId: string;
  provider: string;
  ownTts: boolean;
  srcLang: string;
}

export interface EcommerceItem {
  item_id: string;
  item_name: string;
  price: number;
  quantity: number;
}

/** Every event the app sends, by name. */
export interface AnalyticsEvents {
  begin_checkout: { ecommerce: { currency: string; value: number; items: EcommerceItem[] } };
  purchase: { ecommerce: { transaction_id: string; currency: string; value: number; items: EcommerceItem[] } };
  registration: { method: 'password' | 'oidc' | 'embedded' };
  login: { method: 'password' | 'oidc' | 'embedded' };
  signUpPageShown: Record<string, never>;
  subscriptionPageOpened: { source: string };
  videoUpload: ProjectAnalytics;
  view_item_list: { item_list_name: string; items: EcommerceItem[] };
  customerSurvey: { surveyId: string; answers: string[] };
  paymentReturn: { result: 'payment-successful' | 'payment-subscription-canceled' | 'payment-credits-canceled' };
  dubbingErrorEmptySegments: { locProjectId: string };
  srtErrorMessage: { message: string };
}
export type AnalyticsEventName = keyof AnalyticsEvents;

export interface AnalyticsMessage<N extends AnalyticsEventName = AnalyticsEventName> {
  event: N;
  properties: AnalyticsEvents[N];
  subscription?: SubscriptionGroup;
  tts?: { provider: string; ownTts: boolean };
  user_id?: string;
}

type Sink = (msg: AnalyticsMessage) => void;
const sinks = new Set<Sink>();
let userId: string | undefined;
let subscriptionGroup: SubscriptionGroup | undefined;

declare global {
  interface Window {
    dataLayer?: unknown[];
  }
}

function dataLayerSink(msg: AnalyticsMessage): void {
  const w = globalThis as unknown as Window;
  // No tag manager configured and none on the page: the data layer is off (nothing is created or pushed).
  if (!w.dataLayer) return;
  const { event, properties, ...groups } = msg;
  if (event === 'begin_checkout' || event === 'purchase' || event === 'view_item_list') {
    // GA4 ecommerce: clear the previous ecommerce object first.
    w.dataLayer.push({ ecommerce: null });
  }
  w.dataLayer.push({ event, ...properties, ...groups });
}
sinks.add(dataLayerSink);

export const TAG_MANAGER_DEFAULT_URL = 'https://www.googletagmanager.com/gtm.js';

/**
 * Turns the tag-manager data layer on when the build names a container (VITE_TAG_MANAGER_ID; the script comes
 * from VITE_TAG_MANAGER_URL or the tag manager's own host): creates window.dataLayer and loads the container
 * script. Returns whether it is on. A blocked script changes nothing (events just stay in the array).
 */
export function startTagManager(env: Record<string, string | undefined>, doc: Document | undefined = globalThis.document): boolean {
  const id = env.VITE_TAG_MANAGER_ID?.trim();
  if (!id) return false;
  try {
    const w = globalThis as unknown as Window;
    w.dataLayer ??= [];
    w.dataLayer.push({ 'gtm.start': Date.now(), event: 'gtm.js' });
    if (doc) {
      const script = doc.createElement('script');
      script.async = true;
      script.src = `${env.VITE_TAG_MANAGER_URL?.trim() || TAG_MANAGER_DEFAULT_URL}?id=${encodeURIComponent(id)}`;
      script.onerror = () => {};
      doc.head.appendChild(script);
    }
  } catch {
    /* analytics never breaks the app */
  }
  return true;
}

/** Adds another destination (product analytics, tests); returns the remove function. */
export function addAnalyticsSink(sink: Sink): () => void {
  sinks.add(sink);
  return () => sinks.delete(sink);
}

/** The user id variable and subscription group attached to every following event. */
export function identify(id: string | undefined, subscription?: SubscriptionGroup): void {
  userId = id;
  subscriptionGroup = subscription;
}

/** The one bus: sends an event to every sink, never throws. */
export function track<N extends AnalyticsEventName>(
  event: N,
  properties: AnalyticsEvents[N],
  extra: { tts?: AnalyticsMessage['tts']; subscription?: SubscriptionGroup } = {},
): void {
  try {
    const msg: AnalyticsMessage = {
      event,
      properties,
      ...(extra.subscription ?? subscriptionGroup ? { subscription: extra.subscription ?? subscriptionGroup } : {}),
      ...(extra.tts ? { tts: extra.tts } : {}),
      ...(userId ? { user_id: userId } : {}),
    };
    if (local.has(STORAGE_KEYS.analyticsDebug)) console.debug('[analytics]', msg);
    for (const sink of sinks) {
      try {
        sink(msg);
      } catch {
        /* a broken sink never breaks the app */
      }
    }
  } catch {
    /* never throws */
  }
}

/** The spec's helpers. */
export const analytics = {
  beginCheckout: (items: EcommerceItem[], currency = 'USD') =>
    track('begin_checkout', { ecommerce: { currency, value: sum(items), items } }),
  purchase: (transactionId: string, items: EcommerceItem[], currency = 'USD') =>
    track('purchase', { ecommerce: { transaction_id: transactionId, currency, value: sum(items), items } }),
  registration: (method: AnalyticsEvents['registration']['method']) => track('registration', { method }),
  login: (method: AnalyticsEvents['login']['method']) => track('login', { method }),
  signUpPageShown: () => track('signUpPageShown', {}),
  subscriptionPageOpened: (source: string) => track('subscriptionPageOpened', { source }),
  videoUpload: (p: ProjectAnalytics) => track('videoUpload', p, { tts: { provider: p.provider, ownTts: p.ownTts } }),
  viewItemList: (listName: string, items: EcommerceItem[]) => track('view_item_list', { item_list_name: listName, items }),
  customerSurvey: (surveyId: string, answers: string[]) => track('customerSurvey', { surveyId, answers }),
  paymentReturn: (result: AnalyticsEvents['paymentReturn']['result']) => track('paymentReturn', { result }),
};

function sum(items: EcommerceItem[]): number {
  return Math.round(items.reduce((a, i) => a + i.price * i.quantity, 0) * 100) / 100;
}

/** The analytics view of a project (spec section 3). @internal */
export function projectAnalytics(p: {
  id: string;
  src_lang: string;
  dst_lang: string;
  duration: number | null;
  glossary_id: string | null;
  src_srt_uploaded: boolean;
  dst_srt_uploaded: boolean;
  tts_provider: string | null;
  own_tts?: boolean;
}): ProjectAnalytics {
  return {
    dictionary: p.glossary_id !== null,
    dstLang: p.dst_lang,
    durationMin: analyticsDurationMin(p.duration),
    isSrtUploaded: p.src_srt_uploaded || p.dst_srt_uploaded,
    locProjectId: p.id,
    provider: p.tts_provider ?? 'NA',
    ownTts: p.own_tts ?? false,
    srcLang: p.src_lang,
  };
}
