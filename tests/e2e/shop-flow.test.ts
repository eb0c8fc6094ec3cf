// The merchant's whole flow inside the platform's admin (issue 32), in Debian Chromium: the embedded app framed by
// the test admin page (tests/e2e/parent.html), the shop's Admin API played by the stand-in (products and their CDN,
// staged uploads and product media, app billing). The shop's owner opens the app, imports a product video (real
// speech), dubs it, publishes the dub back to the product; a second staff user of the shop sees it in the shop's
// Teamspace; the shop buys a plan through the platform (approved on its confirmation page) and is charged usage for
// extra minutes; then the app is uninstalled and the shop's access is forgotten.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeShopAdmin, signWebhook } from '../fakes/shop-admin';
import { installShopBilling, type FakeShopBilling } from '../fakes/shop-billing';
import { installShopFiles } from '../fakes/shop-files';
import { installShopProducts } from '../fakes/shop-products';
import { makeSpeechVideo } from '../fixtures/media';
import { ensureBuild, launchBrowser, screenshot, startParentServer, startServer, type ParentServer, type RunningServer } from './support';

const KEY = 'e2e-shop-flow-key';
const SECRET = 'e2e-shop-flow-secret-0123456789abcdef';
const SHOP = 'e2e-flow-shop.myshopify.com';
const PRODUCT = 'gid://shopify/Product/41';

describe("the merchant's store, inside the platform admin", () => {
  let server: RunningServer;
  let admin: ParentServer;
  let fake: FakeShopAdmin;
  let billing: FakeShopBilling;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let videoDir: string;

  beforeAll(async () => {
    ensureBuild();
    videoDir = mkdtempSync(join(tmpdir(), 'e2e-shop-flow-cdn-'));
    copyFileSync(await makeSpeechVideo({ seconds: 6 }), join(videoDir, 'speech.mp4'));
    fake = await new FakeShopAdmin(KEY, SECRET).addShop(SHOP, 'Flow Outfitters').start();
    const products = installShopProducts(fake, { videoDir });
    products.locales.set(SHOP, [
      { locale: 'en', primary: true, published: true },
      { locale: 'es', primary: false, published: true },
    ]);
    installShopFiles(fake);
    billing = installShopBilling(fake);
    fake.addProduct(SHOP, {
      id: PRODUCT,
      title: 'Trail Shoe',
      handle: 'trail-shoe',
      media: [{
        id: 'gid://shopify/Video/410', mediaContentType: 'VIDEO', status: 'READY', alt: 'Trail shoe on the road',
        sources: [{ url: products.cdnUrl('speech.mp4'), mimeType: 'video/mp4', format: 'mp4', width: 320, height: 240 }], preview: null,
      }],
    });
    admin = await startParentServer();
    server = await startServer({
      env: {
        EMBEDDED_WORKER: '1',
        EMBED_APP_KEY: KEY,
        EMBED_APP_SECRET: SECRET,
        EMBED_ADMIN_ORIGINS: admin.origin,
        SHOP_ADMIN_URL: fake.url,
        SHOP_CDN_HOSTS: '127.0.0.1',
        // The platform's confirmation pages are on the shop's admin (allowed as such); the stand-in serves them itself.
        EMBED_REDIRECT_ORIGINS: fake.url,
      },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
    await admin?.close();
    await fake?.close();
    if (videoDir) rmSync(videoDir, { recursive: true, force: true });
  });

  /** A staff user of the shop opens the app in the admin and switches to the shop's Teamspace. */
  async function openAsStaff(sub: string): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ignoreHTTPSErrors: true });
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(admin.pageUrl({ appUrl: `${server.url}/embed/`, key: KEY, secret: SECRET, shop: SHOP, sub }));
    const frame = page.frameLocator('iframe#app');
    const switcher = frame.getByRole('button', { name: /^Teamspace: / }).first();
    await switcher.waitFor({ timeout: 60_000 });
    if (!/Flow Outfitters/.test((await switcher.getAttribute('aria-label')) ?? (await switcher.textContent()) ?? '')) {
      await switcher.click();
      await frame.getByRole('menuitem', { name: /Flow Outfitters/ }).click();
    }
    await frame.getByRole('button', { name: 'Teamspace: Flow Outfitters' }).first().waitFor();
    return { page, errors };
  }

  it('imports a product video, dubs it, publishes it back, a colleague sees it, the plan and extra minutes are billed by the platform, then uninstall', async () => {
    // 1. The owner imports the product's video from "From your store".
    const owner = await openAsStaff('owner-1');
    const frame = owner.page.frameLocator('iframe#app');
    await frame.getByRole('button', { name: 'Translate video' }).first().click();
    const dialog = frame.getByRole('dialog');
    await dialog.getByRole('button', { name: 'From your store' }).click();
    const shoe = dialog.getByTestId('store-videos').getByRole('checkbox', { name: 'Trail Shoe' });
    await shoe.waitFor({ timeout: 30_000 });
    await shoe.check();
    await dialog.getByRole('button', { name: 'Create dub' }).click();
    await frame.getByRole('heading', { name: 'Trail shoe on the road' }).first().waitFor({ timeout: 120_000 });

    // 2. Analysed (real speech recognition and translation), then dubbed.
    await frame.getByLabel('Translation of segment 1').waitFor({ timeout: 240_000 });
    await frame.getByRole('button', { name: 'Generate video' }).click();
    await frame.getByRole('dialog', { name: 'Generate the dubbed video?' }).getByRole('button', { name: 'Generate' }).click();
    await frame.getByText('Video is generated', { exact: true }).first().waitFor({ timeout: 240_000 });

    // 3. Published back to the product it came from, until the platform says READY.
    await frame.getByRole('button', { name: 'Downloads and more' }).click();
    await frame.getByRole('menuitem', { name: 'Publish to product' }).click();
    const publish = frame.getByTestId('publish-dialog');
    await publish.getByText('Trail Shoe').first().waitFor();
    await frame.getByRole('button', { name: 'Publish', exact: true }).click();
    await expect.poll(() => frame.getByTestId('publish-state').getAttribute('data-state'), { timeout: 120_000 }).toBe('ready');
    await screenshot(owner.page, 'shop-flow-1-published');
    const media = fake.product(SHOP, PRODUCT)!.media;
    expect(media.map((m) => [m.mediaContentType, m.status])).toEqual([['VIDEO', 'READY'], ['VIDEO', 'READY']]);
    expect(media[1]!.alt).toBe('Trail Shoe (español)');
    await frame.getByRole('button', { name: 'Done' }).click();

    // 4. Another staff user of the shop sees the project in the shop's Teamspace.
    const colleague = await openAsStaff('staff-2');
    await colleague.page.frameLocator('iframe#app').getByText('Trail shoe on the road').first().waitFor({ timeout: 30_000 });
    await screenshot(colleague.page, 'shop-flow-2-colleague');

    // 5. The owner buys a plan through the platform: the app asks the admin to open the confirmation page, the
    //    merchant approves it there and comes back through the return URL.
    const toPlans = async () => {
      await owner.page.evaluate(() => (window as unknown as { __platform: { navigate(p: string): void } }).__platform.navigate('/pricing'));
    };
    await toPlans();
    const plans = owner.page.frameLocator('iframe#app');
    await plans.getByText('Billed by your store\'s platform every 30 days', { exact: false }).waitFor({ timeout: 30_000 });
    const redirectsBefore = await owner.page.evaluate(() => (window as unknown as { __platform: { redirects: unknown[] } }).__platform.redirects.length);
    await plans.getByRole('button', { name: 'Choose' }).nth(1).click();
    const confirmationUrl = await expect
      .poll(async () => {
        const r = await owner.page.evaluate(() => (window as unknown as { __platform: { redirects: Array<{ url: string | null }> } }).__platform.redirects);
        return r.length > redirectsBefore ? r[r.length - 1]!.url : null;
      }, { timeout: 30_000 })
      .not.toBeNull()
      .then(async () => {
        const r = await owner.page.evaluate(() => (window as unknown as { __platform: { redirects: Array<{ url: string | null }> } }).__platform.redirects);
        return r[r.length - 1]!.url!;
      });
    expect(confirmationUrl.startsWith(fake.url)).toBe(true);
    const approved = await fetch(`${confirmationUrl}&approve=1`, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const back = await fetch(approved.headers.get('location')!, { redirect: 'manual' });
    expect(back.status).toBe(302);
    // Back in the admin: the platform loads the app again.
    await owner.page.reload();
    await plans.getByRole('button', { name: 'Teamspace: Flow Outfitters' }).first().waitFor({ timeout: 60_000 });
    await toPlans();
    await plans.getByText('Current plan').first().waitFor({ timeout: 30_000 });
    await screenshot(owner.page, 'shop-flow-3-plan');

    // 6. Extra minutes are charged as usage on that subscription.
    await plans.getByRole('button', { name: 'Buy minutes' }).click();
    const buy = plans.getByRole('dialog');
    await buy.getByRole('textbox', { name: 'Minutes' }).fill('10');
    await buy.getByRole('button', { name: /^Buy for / }).click();
    await buy.getByText('10 minutes added for $15.00').waitFor({ timeout: 30_000 });
    // The balance in the header follows (the plan's 100 minutes, what was left of the trial, and these 10).
    const header = plans.getByText(/^\d+ minutes left$/).first();
    const before = Number((await header.textContent())!.split(' ')[0]);
    await expect.poll(async () => Number((await header.textContent())!.split(' ')[0]), { timeout: 15_000 }).toBeGreaterThanOrEqual(110);
    expect(before).toBeGreaterThan(0);
    const sub = [...billing.subscriptions.values()].find((s) => s.domain === SHOP && s.status === 'ACTIVE')!;
    expect(sub).toBeDefined();
    const usageLine = sub.lineItems.find((l) => l.kind === 'usage')!;
    expect(billing.usageRecords.filter((u) => u.lineItemId === usageLine.id).map((u) => u.price.amount)).toEqual([15]);
    await screenshot(owner.page, 'shop-flow-4-usage');
    await buy.getByRole('button', { name: 'Close' }).last().click();

    // 7. Uninstalled: the platform's webhook is accepted and the shop's access token is forgotten.
    const w = signWebhook(SECRET, { topic: 'APP_UNINSTALLED', domain: SHOP, body: { id: 1, domain: SHOP }, webhookId: randomUUID() });
    const gone = await fetch(`${server.url}/api/shop/webhooks`, { method: 'POST', headers: w.headers, body: w.raw });
    expect(gone.status).toBe(200);

    expect(fake.violations()).toEqual([]);
    expect(owner.errors).toEqual([]);
    expect(colleague.errors).toEqual([]);
  }, 900_000);
});
