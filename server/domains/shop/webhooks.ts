// What the platform's webhooks do (verified by server/domains/shop/routes.ts):
// - APP_UNINSTALLED: the offline token is forgotten, the Teamspace and its data stay, its running jobs stop.
// - CUSTOMERS_DATA_REQUEST / CUSTOMERS_REDACT: the studio keeps no data of the shop's customers: 200.
// - APP_SUBSCRIPTIONS_UPDATE: the platform's billing of a plan (server/domains/billing/platform-billing.ts).
// - SHOP_REDACT (48 h after an uninstall): the shop's Teamspace, its projects and their files are deleted.
// A delivery is handled once (X-Shopify-Webhook-Id), answered 200 again when the platform retries.
import type { AppDeps } from '../../deps';
import { handleAppSubscriptionsUpdate } from '../billing/platform-billing';
import { cancelProject } from '../projects/service';
import { afterDeletion } from '../retention/service';
import * as spacesRepo from '../spaces/repository';
import { findUserById } from '../users/repository';
import * as repo from './repository';
import { forgetJoined } from './service';
import { forgetSessionTokens, tokenGone } from './token';

export async function handleShopWebhook(
  deps: AppDeps,
  w: { topic: string; domain: string; webhookId: string; rawBody: string },
): Promise<void> {
  if (await repo.deliverySeen(deps.db, w.webhookId)) return;
  const shop = await repo.findShop(deps.db, w.domain);
  switch (w.topic) {
    case 'APP_UNINSTALLED':
      if (shop) {
        await repo.markUninstalled(deps.db, w.domain);
        forgetSessionTokens(deps.db, w.domain);
        tokenGone(deps.db, w.domain);
        if (shop.space_id) await stopRunningJobs(deps, shop.space_id);
      }
      break;
    case 'SHOP_REDACT':
      if (shop) await redactShop(deps, shop);
      break;
    case 'APP_SUBSCRIPTIONS_UPDATE':
      await handleAppSubscriptionsUpdate(deps, w.domain, w.rawBody);
      break;
    case 'CUSTOMERS_DATA_REQUEST':
    case 'CUSTOMERS_REDACT':
      // No customer data is kept by the studio: nothing to send or delete.
      deps.logger.info({ shop: w.domain, topic: w.topic }, 'shop privacy webhook: no customer data kept');
      break;
    default:
      deps.logger.info({ shop: w.domain, topic: w.topic }, 'shop webhook ignored');
  }
  await repo.firstDelivery(deps.db, w.webhookId, w.domain, w.topic);
}

/** Cancels what runs in the Teamspace (as its owner: the same stop as the Cancel button). */
async function stopRunningJobs(deps: AppDeps, spaceId: string): Promise<number> {
  const space = await spacesRepo.findSpace(deps.db, spaceId);
  const owner = space ? await findUserById(deps.db, space.owner_id) : null;
  if (!owner) return 0;
  let stopped = 0;
  for (const p of await repo.runningProjects(deps.db, spaceId)) {
    try {
      await cancelProject(deps, owner, p.id);
      stopped++;
    } catch (e) {
      // Finished meanwhile (409): nothing left to stop.
      deps.logger.info({ project: p.id, err: e instanceof Error ? e.message : String(e) }, 'shop uninstall: project not cancelled');
    }
  }
  return stopped;
}

/** Deletes the shop's Teamspace (its projects, uploads and files go with it) and keeps only the shop's row. */
async function redactShop(deps: AppDeps, shop: repo.ShopRow): Promise<void> {
  if (shop.space_id) {
    const spaceId = shop.space_id;
    await deps.db.tx(async (t) => {
      for (const id of await repo.projectIdsOfSpace(t, spaceId)) await deps.pipeline.cancel(id, t);
      await repo.markRedacted(t, shop.domain);
      await spacesRepo.deleteSpace(t, spaceId);
    });
    forgetJoined(deps.db, shop.domain);
    await afterDeletion(deps);
  } else {
    await repo.markRedacted(deps.db, shop.domain);
  }
  forgetSessionTokens(deps.db, shop.domain);
}
