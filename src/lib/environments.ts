// Deployment environments (spec section 3): each with its own base URL, API URL and alternate ("green") API URL.
// The green API is chosen when the page origin contains "green". VITE_APP_ENV selects one at build time; a
// self-hosted install (the default, 'local') talks to the API of the same origin at /api.
import { SUPPORT_EMAIL } from '../../contract/constants';

export const ENVIRONMENT_NAMES = ['prod', 'prodWhite', 'qa', 'qaWhite', 'stg', 'stgWhite', 'tst', 'tstWhite', 'local'] as const;
export type EnvironmentName = (typeof ENVIRONMENT_NAMES)[number];

export interface EnvironmentDef {
  baseUrl: string;
  apiUrl: string;
  greenApiUrl: string;
  whiteLabel: boolean;
}

export interface Environment extends EnvironmentDef {
  name: EnvironmentName;
  /** The API URL in use: greenApiUrl when the page origin contains "green", apiUrl otherwise. */
  activeApiUrl: string;
  supportEmail: string;
  helpCenterUrl: string;
  /** Sister video-ad product (sidebar promo). */
  videoAdsUrl: string;
}

function hosted(sub: string, domain: string, whiteLabel: boolean): EnvironmentDef {
  const prefix = sub ? `${sub}.` : '';
  const apiPrefix = sub ? `${sub}-` : '';
  return {
    baseUrl: `https://${prefix}app.${domain}`,
    apiUrl: `https://${apiPrefix}api.${domain}/api`,
    greenApiUrl: `https://${apiPrefix}green-api.${domain}/api`,
    whiteLabel,
  };
}

const MAIN_DOMAIN = 'dubbing.studio';
const WHITE_DOMAIN = 'voice-studio.app';

export const ENVIRONMENTS: Record<EnvironmentName, EnvironmentDef> = {
  prod: hosted('', MAIN_DOMAIN, false),
  prodWhite: hosted('', WHITE_DOMAIN, true),
  qa: hosted('qa', MAIN_DOMAIN, false),
  qaWhite: hosted('qa', WHITE_DOMAIN, true),
  stg: hosted('stg', MAIN_DOMAIN, false),
  stgWhite: hosted('stg', WHITE_DOMAIN, true),
  tst: hosted('tst', MAIN_DOMAIN, false),
  tstWhite: hosted('tst', WHITE_DOMAIN, true),
  // Self-hosted: same origin, API mounted at /api by `npm start`.
  local: { baseUrl: '', apiUrl: '/api', greenApiUrl: '/api', whiteLabel: false },
};

export function isEnvironmentName(s: string): s is EnvironmentName {
  return (ENVIRONMENT_NAMES as readonly string[]).includes(s);
}

function pageOrigin(): string {
  return globalThis.location?.origin ?? 'http://localhost';
}

/** The environment for a name (default 'local') and a page origin (green detection). */
export function resolveEnvironment(name: string | undefined, origin: string = pageOrigin()): Environment {
  let key: EnvironmentName = 'local';
  if (name && name.trim() !== '') {
    if (isEnvironmentName(name)) key = name;
    else console.error(`Unknown VITE_APP_ENV "${name}"; using the same-origin API (local). Known: ${ENVIRONMENT_NAMES.join(', ')}`);
  }
  const def = ENVIRONMENTS[key];
  const baseUrl = def.baseUrl || origin;
  const green = origin.toLowerCase().includes('green');
  const domain = key.endsWith('White') ? WHITE_DOMAIN : MAIN_DOMAIN;
  return {
    ...def,
    name: key,
    baseUrl,
    activeApiUrl: green ? def.greenApiUrl : def.apiUrl,
    // A self-hosted install has no support address or help centre of its own unless its server says so
    // (SUPPORT_EMAIL, HELP_CENTER_URL): the links stay hidden instead of pointing at the project's domain.
    supportEmail: key === 'local' ? '' : SUPPORT_EMAIL,
    helpCenterUrl: key === 'local' ? '' : `https://help.${domain}`,
    videoAdsUrl: `https://ads.${domain}`,
  };
}

let cached: Environment | null = null;
/** The environment of this build and page. */
export function currentEnvironment(): Environment {
  if (!cached) cached = resolveEnvironment(import.meta.env?.VITE_APP_ENV as string | undefined);
  return cached;
}

/** White-label build: VITE_WHITE_LABEL=1 at build time, or a *White environment. */
export function isWhiteLabelBuild(): boolean {
  const flag = String(import.meta.env?.VITE_WHITE_LABEL ?? '');
  return /^(1|true|yes|on)$/i.test(flag) || currentEnvironment().whiteLabel;
}
