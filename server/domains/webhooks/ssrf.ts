// The SSRF guard of webhook deliveries: a URL may reach only public addresses (server/net/addresses.ts). Private,
// loopback and shared ranges are allowed only with WEBHOOK_ALLOW_PRIVATE=1 (tests, trusted networks); link-local
// (cloud metadata), unspecified, multicast, reserved addresses and internal ones behind NAT64/6to4/Teredo never.
// Checked on the address actually connected to (the socket's lookup, so a DNS answer cannot change between the
// check and the connection) and on every redirect hop.
import { isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { classifyAddress, describeRange } from '../../net/addresses';

/** Why an address may not be reached, or null when it may (classifyAddress, the same verdict as link downloads). */
export function blockedReason(address: string, allowPrivate: boolean): string | null {
  const v = classifyAddress(address);
  if (!v) return `not an IP address: ${address}`;
  if (v.kind === 'public') return null;
  if (v.kind === 'internal') {
    return allowPrivate ? null : `the address ${address} is private or loopback (${describeRange(v)}; set WEBHOOK_ALLOW_PRIVATE=1 to allow it)`;
  }
  return `the address ${address} is never reachable by webhooks (${describeRange(v)})`;
}

export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';
  readonly code = 'EBLOCKED';
}

/** A dns.lookup for http(s).request that refuses blocked addresses (the check happens at connection time). */
export function guardedLookup(allowPrivate: boolean) {
  return (
    hostname: string,
    options: object,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      for (const a of list) {
        const why = blockedReason(a.address, allowPrivate);
        if (why) return callback(new BlockedAddressError(why), '', 0);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/**
 * What a webhook URL may be at creation: http(s), no credentials, and, when its host is an IP literal or
 * localhost, an address the guard allows. Hosts names are checked again at each delivery.
 */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'Please provide correct link';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'The URL must start with http:// or https://';
  if (u.username || u.password) return 'The URL must not contain a user name or password';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const why = blockedReason(host, allowPrivate);
    return why ? `The webhook URL cannot be used: ${why}` : null;
  }
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal'))) {
    return 'The webhook URL cannot be used: it names a local host (set WEBHOOK_ALLOW_PRIVATE=1 to allow it)';
  }
  return null;
}
