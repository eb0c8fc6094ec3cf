// The embedded build as the server serves it: EMBED_ADMIN_ORIGINS / EMBED_REDIRECT_ORIGINS validated at start-up,
// a Content-Security-Policy frame-ancestors with the admin origins only on every /embed/ response, and the app
// key and allowed origins as meta tags in its index.html. The standalone build may only be framed by itself.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { originAllowed, parseOriginPattern } from '../../../contract/origins';
import { ConfigError, DEFAULT_EMBED_REDIRECT_ORIGINS, loadConfig } from '../../../server/config';
import { createApp } from '../../../server/app/app';
import type { AppDeps } from '../../../server/deps';

const EMBED = { EMBED_APP_KEY: 'app-key-1', EMBED_APP_SECRET: 'app-secret-0123456789abcdef' };

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('loadConfig accepted the environment');
}

describe('embed configuration', () => {
  it('reads the admin and redirect origins, normalised, with Stripe checkout and portal by default', () => {
    const c = loadConfig({
      ...EMBED,
      EMBED_ADMIN_ORIGINS: 'https://Admin.Example.com, https://*.myshop.example:443  https://admin.example.com/',
    });
    expect(c.embed).toEqual({
      key: 'app-key-1',
      secret: 'app-secret-0123456789abcdef',
      adminOrigins: ['https://admin.example.com', 'https://*.myshop.example'],
      redirectOrigins: DEFAULT_EMBED_REDIRECT_ORIGINS,
    });
    expect(DEFAULT_EMBED_REDIRECT_ORIGINS).toEqual(['https://checkout.stripe.com', 'https://billing.stripe.com']);
    const own = loadConfig({ ...EMBED, EMBED_ADMIN_ORIGINS: 'https://admin.example.com', EMBED_REDIRECT_ORIGINS: 'http://127.0.0.1:8443,https://pay.example' });
    expect(own.embed?.redirectOrigins).toEqual(['http://127.0.0.1:8443', 'https://pay.example']);
    expect(loadConfig({ ...EMBED, EMBED_ADMIN_ORIGINS: 'https://a.example', EMBED_REDIRECT_ORIGINS: '' }).embed?.redirectOrigins).toEqual([]);
  });

  it('stops start-up with a message naming the variable for a missing or bad origin', () => {
    expect(configError({ ...EMBED })).toMatch(/^EMBED_ADMIN_ORIGINS is required with EMBED_APP_KEY/);
    expect(configError({ ...EMBED, EMBED_ADMIN_ORIGINS: 'http://admin.example.com' })).toBe(
      'EMBED_ADMIN_ORIGINS: "http://admin.example.com" is not an origin (expected https://host[:port] or https://*.domain, no path)',
    );
    for (const bad of ['https://admin.example.com/store', 'admin.example.com', 'https://*', 'https://a.example?x=1', 'https://u:p@a.example', 'https://a.example:99999', "'self'", 'https://*.1.2.3.4']) {
      expect(configError({ ...EMBED, EMBED_ADMIN_ORIGINS: bad })).toContain(`EMBED_ADMIN_ORIGINS: "${bad}"`);
    }
    expect(configError({ ...EMBED, EMBED_ADMIN_ORIGINS: 'https://a.example', EMBED_REDIRECT_ORIGINS: 'javascript:alert(1)' })).toContain(
      'EMBED_REDIRECT_ORIGINS: "javascript:alert(1)"',
    );
    expect(configError({ EMBED_APP_KEY: 'k' })).toBe('EMBED_APP_KEY and EMBED_APP_SECRET must be set together');
  });

  it('matches origins against exact and wildcard patterns the way frame-ancestors does', () => {
    const patterns = ['https://admin.example.com', 'https://*.myshop.example', 'http://127.0.0.1:8443'];
    expect(originAllowed(patterns, 'https://admin.example.com')).toBe(true);
    expect(originAllowed(patterns, 'https://admin.example.com:443')).toBe(true);
    expect(originAllowed(patterns, 'https://admin.example.com:8443')).toBe(false);
    expect(originAllowed(patterns, 'http://admin.example.com')).toBe(false);
    expect(originAllowed(patterns, 'https://evil-admin.example.com')).toBe(false);
    expect(originAllowed(patterns, 'https://demo.myshop.example')).toBe(true);
    expect(originAllowed(patterns, 'https://a.b.myshop.example')).toBe(true);
    expect(originAllowed(patterns, 'https://myshop.example')).toBe(false);
    expect(originAllowed(patterns, 'https://demo.myshop.example.evil.com')).toBe(false);
    expect(originAllowed(patterns, 'http://127.0.0.1:8443')).toBe(true);
    expect(originAllowed(patterns, 'not a url')).toBe(false);
    expect(parseOriginPattern('HTTPS://*.Shop.Example:443')?.source).toBe('https://*.shop.example');
  });
});

describe('serving the builds', () => {
  // Static serving reads only the configuration: no database is needed.
  const appWith = (env: Record<string, string>) =>
    createApp({ config: loadConfig({ JWT_SECRET: 'test-secret-test-secret-test-secret-123', ...env }) } as unknown as AppDeps, {
      distDir: dist,
      log: () => {},
    });
  let dist: string;
  beforeAll(() => {
    dist = mkdtempSync(join(tmpdir(), 'ds-dist-'));
    for (const build of ['embed', 'standalone']) {
      mkdirSync(join(dist, build, 'assets'), { recursive: true });
      writeFileSync(join(dist, build, 'index.html'), `<!doctype html><html><head><title>${build}</title></head><body></body></html>`);
      writeFileSync(join(dist, build, 'assets', 'app.js'), 'console.log(1)');
    }
  });
  afterAll(() => {
    rmSync(dist, { recursive: true, force: true });
  });

  it('serves /embed/ with frame-ancestors of the admin origins and the app key in index.html', async () => {
    const app = appWith({
      ...EMBED,
      EMBED_APP_KEY: 'key-"<1>',
      EMBED_ADMIN_ORIGINS: 'https://admin.example.com https://*.myshop.example',
      EMBED_REDIRECT_ORIGINS: 'https://checkout.stripe.com',
    });
    for (const path of ['/embed/', '/embed/spaces/abc', '/embed/index.html']) {
      const r = await app.request(path);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-security-policy')).toMatch(/; frame-ancestors https:\/\/admin\.example\.com https:\/\/\*\.myshop\.example$/);
      const html = await r.text();
      expect(html).toContain('<meta name="embed-app-key" content="key-&quot;&lt;1&gt;" />');
      expect(html).toContain(
        '<meta name="embed-allowed-origins" content="https://admin.example.com https://*.myshop.example https://checkout.stripe.com" /></head>',
      );
    }
    const asset = await app.request('/embed/assets/app.js');
    expect(asset.headers.get('content-security-policy')).toMatch(/; frame-ancestors https:\/\/admin\.example\.com https:\/\/\*\.myshop\.example$/);
    expect(await asset.text()).toBe('console.log(1)');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const part = await app.request('/embed/assets/app.js', { headers: { range: 'bytes=0-6' } });
    expect([part.status, await part.text()]).toEqual([206, 'console']);
    const missing = await app.request('/embed/assets/nope.js');
    expect(missing.status).toBe(404);
    // No cookie is ever set: auth inside the iframe is the bearer token only.
    expect((await app.request('/embed/')).headers.get('set-cookie')).toBeNull();
  });

  it('/embed/ has the same full Content-Security-Policy as /, only its frame-ancestors differ', async () => {
    const directives = (csp: string | null) => new Map((csp ?? '').split(/;\s*/).map((d) => [d.split(' ')[0]!, d] as const));
    const envs: Array<Record<string, string>> = [
      { ...EMBED, EMBED_ADMIN_ORIGINS: 'https://admin.example.com https://*.myshop.example' },
      {},
      { S3_BUCKET: 'media', S3_ENDPOINT: 'https://s3.store.example:9000', S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's' },
    ];
    for (const env of envs) {
      const app = appWith(env);
      const page = directives((await app.request('/')).headers.get('content-security-policy'));
      const embed = directives((await app.request('/embed/')).headers.get('content-security-policy'));
      expect(page.get('default-src')).toBe("default-src 'self'");
      expect(page.get('frame-ancestors')).toBe("frame-ancestors 'none'");
      const framing = 'EMBED_ADMIN_ORIGINS' in env ? 'frame-ancestors https://admin.example.com https://*.myshop.example' : "frame-ancestors 'none'";
      expect(embed.get('frame-ancestors')).toBe(framing);
      page.delete('frame-ancestors');
      embed.delete('frame-ancestors');
      expect([...embed.entries()]).toEqual([...page.entries()]);
      expect(embed.size).toBeGreaterThanOrEqual(10);
      if ('S3_ENDPOINT' in env) expect(embed.get('media-src')).toContain('https://s3.store.example:9000');
    }
  });

  it('refuses every framing of /embed/ when embedding is not configured, and the standalone build is never framed', async () => {
    const app = appWith({});
    const r = await app.request('/embed/');
    expect(r.headers.get('content-security-policy')).toMatch(/; frame-ancestors 'none'$/);
    expect(await r.text()).toContain('<meta name="embed-app-key" content="" />');
    const standalone = await app.request('/spaces/x');
    expect(standalone.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(standalone.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await standalone.text()).not.toContain('embed-app-key');
  });
});
