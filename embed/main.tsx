// Embedded build (inside the ad platform's admin iframe, served at /embed/): the app with the parent-frame auth
// provider. The session token comes from window.parent over the postMessage bridge (src/lib/auth/bridge.ts).
// The first load carries ?shop=<shop domain>&host=...; they are remembered for the session and removed from the URL.
import { mountApp } from '../src/app/App';
import { createWindowBridge } from '../src/lib/auth/bridge';
import { createEmbeddedProvider } from '../src/lib/auth/embedded';
import { session, STORAGE_KEYS } from '../src/lib/storage';

const SHOP_RE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+(?::\d{1,5})?$/i;

function launchParams(): { shop: string | null } {
  const url = new URL(window.location.href);
  const rawShop = url.searchParams.get('shop');
  if (rawShop !== null) {
    if (SHOP_RE.test(rawShop)) session.setString(STORAGE_KEYS.embedShop, rawShop.toLowerCase());
    else console.error(`Ignoring invalid shop parameter "${rawShop}": expected a shop domain such as example.myshop.com`);
  }
  const host = url.searchParams.get('host');
  if (host !== null) session.setString(STORAGE_KEYS.embedHost, host);
  if (rawShop !== null || host !== null) {
    url.searchParams.delete('shop');
    url.searchParams.delete('host');
    window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
  }
  return { shop: session.getString(STORAGE_KEYS.embedShop) };
}

const { shop } = launchParams();
mountApp(document.getElementById('root'), createEmbeddedProvider({ bridge: createWindowBridge(shop), shop }));
