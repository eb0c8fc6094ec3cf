// Paying for a plan in Debian Chromium against the real server, with the Stripe SDK pointed at the local stand-in
// (tests/fakes/stripe.ts) whose hosted checkout page completes the session and delivers signed webhooks to the
// server: a trial user opens pricing, chooses a plan, pays, returns with ?payment-successful, sees the plan and
// its minutes on the account page, and generates a dub; a Business-only feature (the Dictionary) shows its
// upgrade modal to this Creator user. Screenshots go to test-artifacts/.
import { describe, expect, it } from 'vitest';
import { makeSpeechVideo } from '../fixtures/media';
import { startStripeStandIn, type StripeStandIn } from '../fakes/stripe';
import { browserSuite, createSuperuser, screenshot, signUpThroughUi, uniqueEmail } from './support';

describe('payments in the browser', () => {
  let stripe: StripeStandIn;
  let video: string;
  const suite = browserSuite({
    before: async () => {
      video = await makeSpeechVideo({ seconds: 5 });
      stripe = await startStripeStandIn();
    },
    server: () => ({ env: { EMBEDDED_WORKER: '1', ...stripe.env() } }),
    after: async () => {
      await stripe?.close();
    },
    context: { viewport: { width: 1366, height: 860 } },
  });

  it('a trial user buys a plan, sees it with its minutes, dubs a video, and meets the upgrade modal of a Business feature', async () => {
    const { server } = suite;
    stripe.setWebhookUrl(`${server.url}/api/payments/webhook`);
    // The first account of an install is a superuser (not limited by plans): made first, so the paying user is an
    // ordinary customer.
    await createSuperuser(server);
    const { page, errors } = await suite.newPage();
    await signUpThroughUi(page, server.url, { email: uniqueEmail('pay'), password: 'secret-pass-1' });

    // Pricing: the catalogue from Stripe, by position, with prices.
    await page.goto(`${server.url}/pricing`);
    await page.getByRole('heading', { name: 'Creator Pro' }).waitFor();
    await page.getByText('$49 / month').waitFor();
    await screenshot(page, 'pricing');
    await page.getByRole('button', { name: 'Choose Creator', exact: true }).click();
    await page.waitForURL(/\/checkout\?price_id=price_creator_month$/);
    await page.getByText('Order summary').waitFor();
    await screenshot(page, 'checkout');

    // Stripe's page (the stand-in), then back with the success flag and the 2 s loader.
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(new RegExp(`^${stripe.url}/pay/cs_test_`));
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/spaces\/[^/?#]+/, { timeout: 30_000 });
    await page.waitForFunction(() => !location.search.includes('payment-successful'), undefined, { timeout: 10_000 });
    expect(stripe.deliveries.map((d) => [d.event.type, d.status])).toEqual([
      ['checkout.session.completed', 200], ['customer.subscription.created', 200], ['invoice.paid', 200],
    ]);

    await page.goto(`${server.url}/account`);
    await page.getByText('Plan and billing').waitFor();
    await page.getByText('Creator', { exact: true }).waitFor();
    await page.getByTestId('latest-payment').waitFor();
    await page.getByTestId('account-minutes').filter({ hasText: '103 minutes left' }).waitFor();
    await page.getByText('Creator Monthly × 1').waitFor();
    await page.getByRole('button', { name: 'Manage subscription' }).waitFor();
    await screenshot(page, 'account-plan');

    // The minute pack: 2500 minutes at $2 each (the cheaper-plan promo shows above $1 a minute).
    await page.getByRole('button', { name: 'Buy minutes' }).click();
    const buy = page.getByRole('dialog');
    await buy.getByRole('textbox', { name: 'Minutes' }).fill('2500');
    await buy.getByText('$5,000').waitFor();
    await buy.getByText('Pay only $1.5 per minute!').waitFor();
    await screenshot(page, 'buy-minutes');
    await buy.getByRole('button', { name: 'Cancel' }).click();
    await buy.waitFor({ state: 'detached' });

    // The Dictionary is a Business feature: shown locked to a Creator, it opens its upgrade modal.
    await page.locator('[data-item="dictionary"]').click();
    const modal = page.getByRole('dialog');
    await modal.getByText('The Dictionary comes with the Business plan and above.').waitFor();
    await screenshot(page, 'upgrade-dictionary');
    await modal.getByRole('button', { name: 'Not now' }).click();

    // A dub with the plan's minutes.
    await page.locator('[data-item="translation"]').click();
    await page.getByRole('button', { name: 'Translate video' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[type=file][accept^="video"]').setInputFiles(video);
    await dialog.getByText('Uploaded', { exact: true }).waitFor({ timeout: 60_000 });
    await dialog.getByLabel('Project name').fill('Paid dub');
    await dialog.getByLabel('Source language').selectOption('en');
    await dialog.getByLabel('Target language', { exact: true }).selectOption('es');
    await dialog.getByRole('button', { name: 'Start translation' }).click();
    await page.waitForURL(/\/project\/[0-9a-f-]{36}$/, { timeout: 30_000 });
    await page.getByLabel('Translation of segment 1').waitFor({ timeout: 180_000 });
    await page.getByRole('button', { name: 'Generate video' }).click();
    await page.getByRole('dialog', { name: 'Generate the dubbed video?' }).getByRole('button', { name: 'Generate' }).click();
    await page.getByText('Video is generated', { exact: true }).first().waitFor({ timeout: 240_000 });
    await screenshot(page, 'paid-dub-generated');

    await page.goto(`${server.url}/account`);
    await page.getByTestId('account-minutes').filter({ hasText: '102 minutes left' }).waitFor({ timeout: 15_000 });
    expect(errors).toEqual([]);
  });
});
