// Embedded build (inside the ad platform's admin iframe, served at /embed/): the app with the embedded auth
// provider. App Bridge is created with the app key the server puts into index.html and the `host` parameter
// the platform adds to the iframe URL (src/lib/auth/embed-config.ts); session tokens and navigation out of
// the frame go through it (src/lib/auth/bridge.ts). The launch parameters are kept in memory and removed from
// the address; links to other origins leave through the platform (routeExternalLinks).
import { mountApp } from '../src/app/app';
import { currentEnvironment } from '../src/lib/environments';
import { createWindowBridge } from '../src/lib/auth/bridge';
import { readWindowLaunch } from '../src/lib/auth/embed-config';
import { createEmbeddedProvider } from '../src/lib/auth/embedded';
import { navigateExternal, routeExternalLinks } from '../src/lib/navigation';
import { showToast } from '../src/ui/toasts';

const launch = readWindowLaunch();
// Besides what the server allows, the app's own destinations (Help Center, the sister product) may be opened.
const env = currentEnvironment();
const ownDestinations = [env.helpCenterUrl, env.videoAdsUrl].flatMap((u) => {
  try {
    return [new URL(u).origin];
  } catch {
    return [];
  }
});
const bridge = createWindowBridge({ ...launch, allowedOrigins: [...launch.allowedOrigins, ...ownDestinations] });

const url = new URL(window.location.href);
if (url.searchParams.has('shop') || url.searchParams.has('host')) {
  url.searchParams.delete('shop');
  url.searchParams.delete('host');
  window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
}

routeExternalLinks(document, {
  navigate: navigateExternal,
  onError: (message) => showToast(message, { error: true }),
});

mountApp(document.getElementById('root'), createEmbeddedProvider({ bridge, shop: launch.shop }));
