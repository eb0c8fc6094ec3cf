// Device type from the browser agent string (spec section 4): tablet, mobile or desktop.
export type DeviceType = 'mobile' | 'tablet' | 'desktop';

const TABLET = /(ipad|tablet|playbook|silk|kindle|nexus (7|9|10)|sm-t\d|(android(?!.*mobile)))/i;
const MOBILE = /(mobi|iphone|ipod|android.*mobile|blackberry|bb10|iemobile|opera mini|windows phone|webos)/i;

export function deviceTypeFromUserAgent(ua: string): DeviceType {
  if (TABLET.test(ua)) return 'tablet';
  if (MOBILE.test(ua)) return 'mobile';
  return 'desktop';
}

export function getDeviceType(): DeviceType {
  const ua = typeof navigator === 'undefined' ? '' : navigator.userAgent ?? '';
  return deviceTypeFromUserAgent(ua);
}

