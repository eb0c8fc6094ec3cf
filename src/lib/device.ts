// Device class. The layout follows the window's width (a narrow desktop window gets the phone layout, a wide
// tablet the desktop one): under 640 px mobile, under 1024 px tablet, else desktop. The user-agent reading stays
// for analytics and tests that need the browser's own class.
export type DeviceType = 'mobile' | 'tablet' | 'desktop';

const TABLET = /(ipad|tablet|playbook|silk|kindle|nexus (7|9|10)|sm-t\d|(android(?!.*mobile)))/i;
const MOBILE = /(mobi|iphone|ipod|android.*mobile|blackberry|bb10|iemobile|opera mini|windows phone|webos)/i;

/** @internal Used by tests only. */
export function deviceTypeFromUserAgent(ua: string): DeviceType {
  if (TABLET.test(ua)) return 'tablet';
  if (MOBILE.test(ua)) return 'mobile';
  return 'desktop';
}

/** Below these widths (CSS px) the layout is the phone's, then the tablet's. */
export const MOBILE_MAX_WIDTH = 640;
export const TABLET_MAX_WIDTH = 1024;

export function deviceTypeFromWidth(width: number): DeviceType {
  if (width < MOBILE_MAX_WIDTH) return 'mobile';
  if (width < TABLET_MAX_WIDTH) return 'tablet';
  return 'desktop';
}

export function getDeviceType(): DeviceType {
  if (typeof window === 'undefined' || !Number.isFinite(window.innerWidth) || window.innerWidth <= 0) return 'desktop';
  return deviceTypeFromWidth(window.innerWidth);
}

/** Calls `on` with the device class whenever a resize changes it; returns the unsubscribe. */
export function watchDeviceType(on: (d: DeviceType) => void): () => void {
  if (typeof window === 'undefined') return () => {};
  let last = getDeviceType();
  const check = () => {
    const now = getDeviceType();
    if (now !== last) {
      last = now;
      on(now);
    }
  };
  window.addEventListener('resize', check);
  return () => window.removeEventListener('resize', check);
}
