// Single sign-on to the sister video-ad product: the sealed box opens with the sister's secret key and holds a
// valid ID token, the name and the picture; refused on the trial plan and when not configured.
import { jwtVerify } from 'jose';
import sodium from 'libsodium-wrappers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../harness';
import { grantPlan, makeUser, type TestUser } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let bare: Harness;
let keys: { publicKey: Uint8Array; privateKey: Uint8Array };
let paid: TestUser;
let trial: TestUser;

beforeAll(async () => {
  await sodium.ready;
  keys = sodium.crypto_box_keypair();
  h = await createHarness({
    SISTER_APP_URL: 'https://ads.example.com/sso',
    SISTER_APP_PUBLIC_KEY: sodium.to_base64(keys.publicKey, sodium.base64_variants.ORIGINAL),
    PUBLIC_URL: 'https://studio.example',
  });
  paid = await makeUser(h, 'paid@example.com');
  await h.deps.db.query(`UPDATE users SET picture = 'https://cdn.example/p.png' WHERE id = $1`, [paid.id]);
  await grantPlan(h, paid.id, 'creator');
  trial = await makeUser(h, 'trial@example.com');
  bare = await createHarness();
});
afterAll(async () => {
  await h?.close();
  await bare?.close();
});

describe('POST /api/users/sister_sso', () => {
  it('redirects to the sister host with a sealed box only its secret key opens', async () => {
    const r = await typedClient(h, paid.token).POST('/api/users/sister_sso');
    expect(r.response.status).toBe(200);
    const url = new URL(r.data!.redirect_url);
    expect(`${url.origin}${url.pathname}`).toBe('https://ads.example.com/sso');
    const box = sodium.from_base64(url.searchParams.get('code')!, sodium.base64_variants.URLSAFE_NO_PADDING);
    const opened = JSON.parse(sodium.to_string(sodium.crypto_box_seal_open(box, keys.publicKey, keys.privateKey)));
    expect(opened.name).toBe('paid');
    expect(opened.picture).toBe('https://cdn.example/p.png');
    const { payload } = await jwtVerify(opened.id_token, new TextEncoder().encode(h.config.jwtSecret), { audience: 'https://ads.example.com' });
    expect(payload.email).toBe('paid@example.com');
    expect(payload.iss).toBe('https://studio.example');
    expect(payload.exp! - payload.iat!).toBe(300);
    // Another key pair cannot open it.
    const other = sodium.crypto_box_keypair();
    expect(() => sodium.crypto_box_seal_open(box, other.publicKey, other.privateKey)).toThrow();
    // The settings say it is configured.
    const settings = await typedClient(h, paid.token).GET('/api/settings');
    expect(settings.response.status).toBe(200);
    expect(settings.data!.sister_app).toBe(true);
  });

  it('is refused on the trial plan, anonymously, and when not configured', async () => {
    const t = await typedClient(h, trial.token).POST('/api/users/sister_sso');
    expect(t.response.status).toBe(403);
    expect(t.error!.detail).toBe('Try video Ad is not available on the trial plan');
    expect((await typedClient(h).POST('/api/users/sister_sso')).response.status).toBe(401);
    const u = await makeUser(bare, 'x@example.com');
    await grantPlan(bare, u.id, 'business');
    const n = await typedClient(bare, u.token).POST('/api/users/sister_sso');
    expect(n.response.status).toBe(503);
    expect(n.error!.detail).toBe('Single sign-on to the video-ad product is not configured');
  });
});
