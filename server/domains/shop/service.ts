// The shop is a Teamspace (issue 32): the first session token of a shop creates its Teamspace (named after the
// shop; its first staff user is the owner), every other staff user who opens the app joins it as an editor.
// The shop's Admin API offline token comes from token exchange (the library), kept sealed in `shops`.
import { decodeJwt } from 'jose';
import { DEFAULT_TEAMSPACE_COLOR, DEFAULT_TEAMSPACE_MINUTES } from '../../../contract/constants';
import { namespace } from '../../cache/index';
import type { Db } from '../../db/index';
import type { AppDeps } from '../../deps';
import * as ledger from '../billing/ledger';
import * as spacesRepo from '../spaces/repository';
import { shopAdminGraphql } from './admin';
import { exchangeToken, rememberSessionToken, TOKEN_MEMO_MS, tokenGone, tokenKnown, tokenSeen } from './token';
import * as repo from './repository';

/** 'demo-shop.myshopify.com' -> 'demo-shop' (until the Admin API tells the shop's own name). */
function shopNameOf(domain: string): string {
  return domain.split('.')[0] || domain;
}

/** Staff users placed in their shop's Teamspace by this app: `${domain}|${identityId}` -> space id, when (a memo; app state). */
const JOINED = namespace('shop.joined', () => new Map<string, { spaceId: string; at: number }>());
const JOINED_MAX = 10_000;
/** Puts the staff user in the shop's Teamspace, creating it (owner) on the shop's first session token. */
async function joinShopSpace(deps: AppDeps, domain: string, userId: string): Promise<{ spaceId: string; created: boolean }> {
  return deps.db.tx(async (t) => {
    const shop = await repo.lockOrInsertShop(t, domain, shopNameOf(domain));
    if (shop.space_id) {
      await spacesRepo.addMember(t, shop.space_id, userId, 'editor');
      return { spaceId: shop.space_id, created: false };
    }
    const space = await spacesRepo.insertSpace(t, { name: shop.name, color: DEFAULT_TEAMSPACE_COLOR, ownerId: userId, isDefault: false });
    await spacesRepo.addMember(t, space.id, userId, 'owner');
    // The same trial minutes as a new account's space, once per space.
    await ledger.post(t, { spaceId: space.id, kind: 'grant', minutes: DEFAULT_TEAMSPACE_MINUTES, ref: 'trial', userId, note: 'trial minutes (shop)' });
    await repo.setShopSpace(t, domain, space.id);
    return { spaceId: space.id, created: true };
  });
}

/** Forgets this process's memo of the shop's members (its Teamspace was deleted). */
export function forgetJoined(db: Db, domain: string): void {
  const joined = db.state.of(JOINED);
  for (const k of joined.keys()) if (k.startsWith(`${domain}|`)) joined.delete(k);
  tokenGone(db, domain);
}

/**
 * The embedded sign-in hook (server/domains/auth/embed.ts), on every request with a session token: the shop's
 * Teamspace and the user's membership (once per process and user), and, while the shop has no offline token, the
 * token exchange (a failure is logged: the request goes on, the next one retries).
 */
export async function onShopSignIn(
  deps: AppDeps,
  s: { domain: string; sessionToken: string; identityId: string; userId: () => Promise<string> },
): Promise<void> {
  if (!deps.config.shop) return;
  const exp = decodeJwt(s.sessionToken).exp;
  if (typeof exp === 'number') rememberSessionToken(deps.db, s.domain, s.sessionToken, exp * 1000);
  const key = `${s.domain}|${s.identityId}`;
  let created = false;
  const joined = deps.db.state.of(JOINED);
  const memo = joined.get(key);
  let spaceId = memo && Date.now() - memo.at < TOKEN_MEMO_MS ? memo.spaceId : undefined;
  if (!spaceId) {
    ({ spaceId, created } = await joinShopSpace(deps, s.domain, await s.userId()));
    if (joined.size >= JOINED_MAX) joined.clear();
    joined.set(key, { spaceId, at: Date.now() });
  }
  if (!tokenKnown(deps.db, s.domain)) {
    const shop = await repo.findShop(deps.db, s.domain);
    if (shop?.token_box) {
      tokenSeen(deps.db, s.domain);
    } else {
      try {
        await exchangeToken(deps, s.domain, s.sessionToken);
      } catch (e) {
        deps.logger.warn({ shop: s.domain, err: e instanceof Error ? e.message : String(e) }, 'shop token exchange failed');
        return;
      }
    }
  }
  if (created) await nameAfterShop(deps, s.domain, spaceId);
}

/** Names the new Teamspace after the shop as the Admin API tells it (kept as is when that fails). */
async function nameAfterShop(deps: AppDeps, domain: string, spaceId: string): Promise<void> {
  try {
    const data = await shopAdminGraphql<{ shop: { name: string } }>(deps, spaceId, `query { shop { name } }`);
    const name = data.shop?.name?.trim().slice(0, 100);
    if (!name) return;
    await repo.renameShop(deps.db, domain, name);
    await spacesRepo.updateSpace(deps.db, spaceId, { name });
  } catch (e) {
    deps.logger.warn({ shop: domain, err: e instanceof Error ? e.message : String(e) }, 'shop name not read');
  }
}
