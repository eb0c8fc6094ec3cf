// "Publish to product" in the browser (issue 32, part 4): in a shop's Teamspace, the Download menu of a dubbed
// video offers "Publish to product"; the dialog shows the product the video came from, publishes, and follows
// the publication until Ready; a failure shows the store's own message. The shop's Admin API is the local stand-in.
import { serve } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDeps, shutdownDeps } from '../../server/bootstrap';
import { loadConfig } from '../../server/config';
import type { AppDeps } from '../../server/deps';
import { insertProject, updateProjectFields } from '../../server/domains/projects/repository';
import { sealToken } from '../../server/domains/shop/crypto';
import { publishTiming } from '../../server/domains/shop/publish';
import { linkProjectProduct } from '../../server/domains/shop/repository';
import { createApp } from '../../server/app/app';
import { projectKey } from '../../server/storage/index';
import { FakeShopAdmin } from '../fakes/shop-admin';
import { installShopFiles, type ShopFiles } from '../fakes/shop-files';
import { DIST, ensureBuild, launchBrowser, newContext, uniqueEmail } from './support';

const KEY = 'e2e-publish-key';
const SECRET = 'e2e-publish-secret-0123456789abcdef';
const SHOP = 'e2e-publish.myshopify.com';
const PRODUCT = 'gid://shopify/Product/9001';

describe('publish a dub to the product it came from', () => {
  let fake: FakeShopAdmin;
  let files: ShopFiles;
  let deps: AppDeps;
  let server: ReturnType<typeof serve>;
  let dataDir: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectUrl: string;

  beforeAll(async () => {
    ensureBuild();
    Object.assign(publishTiming, { pollFirstMs: 200, pollMaxMs: 400 });
    fake = await new FakeShopAdmin(KEY, SECRET).addShop(SHOP, 'E2E Outfitters').start();
    files = installShopFiles(fake);
    files.readyAfterPolls = 3;
    fake.addProduct(SHOP, { id: PRODUCT, title: 'Canvas Tote', handle: 'canvas-tote', media: [] });
    dataDir = mkdtempSync(join(tmpdir(), 'ds-shop-publish-'));
    const config = loadConfig({
      ...process.env,
      NODE_ENV: 'test',
      JWT_SECRET: 'shop-publish-secret-shop-publish-secret-0001',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      EMBEDDED_WORKER: '0',
      LOG_LEVEL: 'warn',
      LOG_PRETTY: '0',
      EMBED_APP_KEY: KEY,
      EMBED_APP_SECRET: SECRET,
      EMBED_ADMIN_ORIGINS: 'https://admin.example.com',
      SHOP_ADMIN_URL: fake.url,
    });
    deps = await buildDeps(config, { role: 'server' });
    const app = createApp(deps, { distDir: DIST, log: () => {} });
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((r) => server.once('listening', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const call = async (method: string, path: string, body?: unknown, token?: string) => {
      const res = await fetch(base + path, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<unknown>;
    };
    const email = uniqueEmail('shop-publish');
    const tokens = (await call('POST', '/api/auth/sign-up', { email, password: 'publish-password-1' })) as { access_token: string; refresh_token: string; expires_in: number };
    const user = (await call('POST', '/api/users', { email }, tokens.access_token)) as { id: string };
    const spaceId = ((await call('GET', '/api/space/list', undefined, tokens.access_token)) as { id: string }[])[0]!.id;
    // The user's Teamspace is the shop's, with its offline token (as a token exchange leaves it).
    const accessToken = 'shpat_e2e_publish';
    fake.tokens.set(accessToken, SHOP);
    await deps.db.query(`INSERT INTO shops (domain, space_id, name, token_box) VALUES ($1, $2, 'E2E Outfitters', $3)`, [
      SHOP, spaceId, await sealToken(config.shop!.tokenKey, accessToken),
    ]);
    const project = await insertProject(deps.db, {
      spaceId, userId: user.id, name: 'Tote video', srcLang: 'en', dstLang: 'es', mediaId: null, link: null,
      numSpeakers: null, srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: null,
      status: 'merging_done', progress: 100,
    });
    const key = projectKey(project.id, 'translated.mp4');
    await deps.storage.putBuffer(key, Buffer.alloc(50_000, 7));
    await updateProjectFields(deps.db, project.id, { translated_video: key, duration: 5 } as never);
    await linkProjectProduct(deps.db, { projectId: project.id, domain: SHOP, productId: PRODUCT, productTitle: 'Canvas Tote', mediaId: null });
    projectUrl = `${base}/spaces/${spaceId}/project/${project.id}`;
    browser = await launchBrowser();
    context = await newContext(browser, { viewport: { width: 1440, height: 900 } });
    const session = { access_token: tokens.access_token, refresh_token: tokens.refresh_token, expires_at: Date.now() + tokens.expires_in * 1000 };
    await context.addInitScript(`localStorage.setItem('auth_session', ${JSON.stringify(JSON.stringify(session))});`);
    page = await context.newPage();
  }, 240_000);

  afterAll(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    if (server) await new Promise((r) => server.close(r));
    if (deps) await shutdownDeps(deps);
    await fake?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('publishes from the Download menu and shows Ready; a second try that fails shows the store\'s message', async () => {
    await page.goto(projectUrl);
    await page.getByRole('button', { name: 'Downloads and more' }).click();
    await page.getByRole('menuitem', { name: 'Publish to product' }).click();
    const dialog = page.getByTestId('publish-dialog');
    await dialog.waitFor();
    await expect.poll(() => dialog.textContent()).toContain('Canvas Tote');
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    const state = page.getByTestId('publish-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 60_000 }).toBe('ready');
    expect(fake.product(SHOP, PRODUCT)!.media.map((m) => [m.alt, m.status])).toEqual([['Canvas Tote (español)', 'READY']]);
    await page.getByRole('button', { name: 'Done' }).click();

    // Again, and the store refuses: its message is shown as it is; the earlier video stays.
    files.nextCreateErrors = [{ field: ['media'], message: 'Exceeded the limit of media per product', code: 'PRODUCT_MEDIA_LIMIT_EXCEEDED' }];
    await page.getByRole('button', { name: 'Downloads and more' }).click();
    await page.getByRole('menuitem', { name: 'Publish to product' }).click();
    await page.getByRole('button', { name: 'Replace the video' }).click();
    await expect.poll(() => page.getByTestId('publish-state').getAttribute('data-state'), { timeout: 60_000 }).toBe('failed');
    expect(await page.getByTestId('publish-error').textContent()).toBe('Exceeded the limit of media per product');
    expect(fake.product(SHOP, PRODUCT)!.media).toHaveLength(1);
  }, 240_000);
});
