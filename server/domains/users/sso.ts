// Single sign-on to the sister video-ad product (spec section 7, Other mechanisms): a sealed box
// (libsodium crypto_box_seal with the sister product's X25519 public key) of an ID token, the name and the
// picture; the browser is sent to the sister product's host with it as `code`. Only that product's secret key
// opens it. Not offered on trial plans, nor when SISTER_APP_URL / SISTER_APP_PUBLIC_KEY are not set.
import { SignJWT } from 'jose';
import sodium from 'libsodium-wrappers';
import type { Config } from '../../config';
import type { Db } from '../../db/index';
import { DomainError } from '../../errors';
import { getUserSubscriptionCached, effectiveTierOf } from '../billing/plan';
import type { UserRow } from '../../caller';

export const SSO_TEXTS = {
  notConfigured: 'Single sign-on to the video-ad product is not configured',
  trial: 'Try video Ad is not available on the trial plan',
} as const;

/** Seconds the ID token in the box stays valid (the sister product redeems it at once). */
export const SSO_TOKEN_TTL = 300;

export async function sisterSsoRedirect(db: Db, config: Pick<Config, 'sisterApp' | 'jwtSecret' | 'publicUrl'>, user: UserRow): Promise<{ redirect_url: string }> {
  const sister = config.sisterApp;
  if (!sister) throw new DomainError('unavailable', SSO_TEXTS.notConfigured);
  const tier = effectiveTierOf(await getUserSubscriptionCached(db, user.id));
  if (tier === 'trial' || tier === 'free') throw new DomainError('forbidden', SSO_TEXTS.trial);
  const idToken = await new SignJWT({ email: user.email, email_type: user.email_type })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.identity_id)
    .setIssuer(config.publicUrl ?? 'dubbing-studio')
    .setAudience(new URL(sister.url).origin)
    .setIssuedAt()
    .setExpirationTime(`${SSO_TOKEN_TTL}s`)
    .sign(new TextEncoder().encode(config.jwtSecret));
  await sodium.ready;
  const payload = JSON.stringify({ id_token: idToken, name: user.email.split('@')[0], picture: user.picture });
  const box = sodium.crypto_box_seal(sodium.from_string(payload), sodium.from_base64(sister.publicKey, sodium.base64_variants.ORIGINAL));
  const url = new URL(sister.url);
  url.searchParams.set('code', sodium.to_base64(box, sodium.base64_variants.URLSAFE_NO_PADDING));
  return { redirect_url: url.toString() };
}
