// Product videos in (issue 32 part 3), in Debian Chromium: the embedded app framed by the test admin page
// (tests/e2e/parent.html), the shop's Admin API played by the stand-in (FakeShopAdmin + tests/fakes/shop-products.ts)
// whose CDN route serves a real small MP4 made now with ffmpeg. The shop's owner switches to the shop's Teamspace,
// opens the create dialog, picks a product video under "From your store" (source language defaulted to the shop's
// primary locale, a published locale offered first) and creates the dub: the app goes to the new project.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeShopAdmin } from '../fakes/shop-admin';
import { installShopProducts } from '../fakes/shop-products';
import { ensureBuild, launchBrowser, screenshot, startParentServer, startServer, type ParentServer, type RunningServer } from './support';

const KEY = 'e2e-shop-import-key';
const SECRET = 'e2e-shop-import-secret-0123456789abcdef';
const SHOP = 'e2e-import-shop.myshopify.com';

describe('product videos in, inside the platform admin', () => {
  let server: RunningServer;
  let admin: ParentServer;
  let fake: FakeShopAdmin;
  let browser: Browser;
  let context: BrowserContext | null = null;
  let videoDir: string;

  beforeAll(async () => {
    ensureBuild();
    videoDir = mkdtempSync(join(tmpdir(), 'e2e-shop-cdn-'));
    execFileSync('ffmpeg', [
      '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=16000',
      '-t', '2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', join(videoDir, 'clip.mp4'),
    ]);
    fake = await new FakeShopAdmin(KEY, SECRET).addShop(SHOP, 'Import Outfitters').start();
    const ext = installShopProducts(fake, { videoDir });
    ext.locales.set(SHOP, [
      { locale: 'en', primary: true, published: true },
      { locale: 'es', primary: false, published: true },
    ]);
    fake.addProduct(SHOP, {
      id: 'gid://shopify/Product/7',
      title: 'Canvas Tote',
      handle: 'canvas-tote',
      media: [{
        id: 'gid://shopify/Video/70', mediaContentType: 'VIDEO', status: 'READY', alt: 'Tote in use',
        sources: [{ url: ext.cdnUrl('clip.mp4'), mimeType: 'video/mp4', format: 'mp4', width: 160, height: 120 }], preview: null,
      }],
    });
    fake.addProduct(SHOP, { id: 'gid://shopify/Product/8', title: 'Leather Belt', handle: 'belt', media: [] });
    admin = await startParentServer();
    server = await startServer({
      env: {
        EMBED_APP_KEY: KEY,
        EMBED_APP_SECRET: SECRET,
        EMBED_ADMIN_ORIGINS: admin.origin,
        SHOP_ADMIN_URL: fake.url,
        SHOP_CDN_HOSTS: '127.0.0.1',
      },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    await server?.stop();
    await admin?.close();
    await fake?.close();
    if (videoDir) rmSync(videoDir, { recursive: true, force: true });
  });

  it('picks a product video under "From your store" and creates its dub', async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(admin.pageUrl({ appUrl: `${server.url}/embed/`, key: KEY, secret: SECRET, shop: SHOP, sub: 'owner-1' }));
    const frame = page.frameLocator('iframe#app');
    // The shop's Teamspace, named after the shop by its Admin API.
    const switcher = frame.getByRole('button', { name: /^Teamspace: / }).first();
    await switcher.waitFor({ timeout: 30_000 });
    await switcher.click();
    await frame.getByRole('menuitem', { name: /Import Outfitters/ }).click();
    await frame.getByRole('button', { name: 'Teamspace: Import Outfitters' }).first().waitFor();

    await frame.getByRole('button', { name: 'Translate video' }).first().click();
    const dialog = frame.getByRole('dialog');
    await dialog.getByRole('button', { name: 'From your store' }).click();
    const list = dialog.getByTestId('store-videos');
    const tote = list.getByRole('checkbox', { name: 'Canvas Tote' });
    await tote.waitFor({ timeout: 15_000 });
    expect(await list.getByRole('checkbox', { name: 'Leather Belt' }).count()).toBe(0); // no video
    // Defaults from the shop's locales: English (primary) as the source, Spanish (published) offered and picked.
    expect(await dialog.getByLabel('Source language').inputValue()).toBe('en');
    expect(await dialog.getByRole('checkbox', { name: /Spanish|Español/ }).isChecked()).toBe(true);
    // Search by title.
    await dialog.getByPlaceholder('Search products by title').fill('nothing');
    await list.getByText(/No product with a video matches/).waitFor();
    await dialog.getByPlaceholder('Search products by title').fill('tote');
    await tote.waitFor();
    await tote.check();
    await screenshot(page, 'shop-import-1-picked');
    await dialog.getByRole('button', { name: 'Create dub' }).click();

    // The app goes to the new project.
    await frame.getByRole('heading', { name: 'Tote in use' }).first().waitFor({ timeout: 60_000 });
    const appFrame = page.frames().find((f) => f.url().startsWith(`${server.url}/embed/`))!;
    expect(appFrame.url()).toMatch(/\/project\/[0-9a-f-]{36}/);
    await screenshot(page, 'shop-import-2-project');
    expect(fake.requestsTo('GET', '/cdn/clip.mp4').length).toBeGreaterThan(0);
    expect(fake.violations()).toEqual([]);
    expect(errors).toEqual([]);
  });
});
