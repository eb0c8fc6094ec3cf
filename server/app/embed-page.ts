// What the server adds to the embedded build (/embed/): the Content-Security-Policy (the standalone build's,
// except that only the configured admin origins may frame it), and the settings the page needs before its
// first request, as meta tags in index.html (read by src/lib/auth/embed-config.ts): the app key App Bridge is
// created with and the origins the app may send the admin window to.
import { EMBED_META } from '../../contract/origins';
import type { Config } from '../config';
import { contentSecurityPolicy } from './csp';

/**
 * CSP of every /embed/ response: the standalone build's full policy (server/app/csp.ts) with frame-ancestors the
 * admin origins, or nobody when embedding is not configured.
 */
export function embedContentSecurityPolicy(config: Pick<Config, 'embed' | 's3'>): string {
  const origins = config.embed?.adminOrigins ?? [];
  return contentSecurityPolicy(config, origins.length ? origins.join(' ') : "'none'");
}


function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** index.html of the embedded build with the app key and the allowed redirect origins as meta tags. */
export function injectEmbedSettings(html: string, config: Pick<Config, 'embed'>): string {
  const embed = config.embed;
  const allowed = embed ? [...embed.adminOrigins, ...embed.redirectOrigins] : [];
  const tags =
    `<meta name="${EMBED_META.appKey}" content="${escapeAttr(embed?.key ?? '')}" />` +
    `<meta name="${EMBED_META.allowedOrigins}" content="${escapeAttr(allowed.join(' '))}" />`;
  const at = html.search(/<\/head>/i);
  return at === -1 ? tags + html : html.slice(0, at) + tags + html.slice(at);
}
