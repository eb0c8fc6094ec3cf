// Navigation out of the app to the payment provider (Checkout, Billing Portal): the one navigation function of
// both builds (src/lib/navigation.ts): the browser in the standalone build, the platform's Redirect (allowed
// origins only) in the embedded one.
import { navigateExternal } from '../../lib/navigation';

export function leaveApp(url: string): void {
  navigateExternal(url);
}
