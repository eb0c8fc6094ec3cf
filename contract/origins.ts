// Origin patterns of the embedded build, shared by the server (config validation, the CSP frame-ancestors
// header) and the browser (which origins the app may send the admin window to).
//
// A pattern is an origin, `https://admin.example.com` or `http://127.0.0.1:8443`, or a wildcard over the
// subdomains of a host, `https://*.example.com` (any depth; not example.com itself), the same syntax as a
// CSP host-source. No path, query, fragment or credentials.

/** Meta tags the server adds to the embedded build's index.html (server/app/embed-page.ts). */
export const EMBED_META = {
  /** The app key App Bridge is created with (EMBED_APP_KEY). */
  appKey: 'embed-app-key',
  /** Space-separated origin patterns the admin window may be sent to (EMBED_ADMIN_ORIGINS + EMBED_REDIRECT_ORIGINS). */
  allowedOrigins: 'embed-allowed-origins',
} as const;

export interface OriginPattern {
  scheme: 'https' | 'http';
  /** Lower-case host without the `*.` of a wildcard. */
  host: string;
  wildcard: boolean;
  /** Explicit port, or null for the scheme's default. */
  port: number | null;
  /** The pattern as written in a CSP source list (normalised). */
  source: string;
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST_RE = new RegExp(`^(?:${LABEL}\\.)*${LABEL}$`);
const IPV4_RE = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const PATTERN_RE = /^(https?):\/\/(\*\.)?([^/:?#@\s]+)(?::(\d{1,5}))?\/?$/i;

/** Parses one pattern; null when it is not one. `schemes` limits the accepted schemes. */
export function parseOriginPattern(
  input: string,
  schemes: readonly ('https' | 'http')[] = ['https', 'http'],
): OriginPattern | null {
  const m = PATTERN_RE.exec(input.trim());
  if (!m) return null;
  const scheme = m[1].toLowerCase() as 'https' | 'http';
  if (!schemes.includes(scheme)) return null;
  const wildcard = !!m[2];
  const host = m[3].toLowerCase();
  if (IPV4_RE.test(host)) {
    if (wildcard || host.split('.').some((o) => Number(o) > 255)) return null;
  } else if (!HOST_RE.test(host)) return null;
  const port = m[4] !== undefined ? Number(m[4]) : null;
  if (port !== null && (port < 1 || port > 65535)) return null;
  const defaultPort = scheme === 'https' ? 443 : 80;
  const explicit = port !== null && port !== defaultPort ? port : null;
  const source = `${scheme}://${wildcard ? '*.' : ''}${host}${explicit !== null ? `:${explicit}` : ''}`;
  return { scheme, host, wildcard, port: explicit, source };
}

/** Splits a list written with commas and/or white space. */
export function splitOriginList(input: string): string[] {
  return input
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Does an origin (`https://a.example.com:8443`) match the pattern? */
export function originMatches(pattern: OriginPattern, origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== `${pattern.scheme}:`) return false;
  const port = url.port === '' ? null : Number(url.port);
  if (port !== pattern.port) return false;
  const host = url.hostname.toLowerCase();
  return pattern.wildcard ? host.endsWith(`.${pattern.host}`) : host === pattern.host;
}

/** Does the origin match any of the patterns (given as strings; unparsable ones match nothing)? */
export function originAllowed(patterns: readonly string[], origin: string): boolean {
  return patterns.some((p) => {
    const parsed = parseOriginPattern(p);
    return parsed !== null && originMatches(parsed, origin);
  });
}
