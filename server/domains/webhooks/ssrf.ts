// The SSRF guard of webhook deliveries: a URL may reach only public addresses. Private, loopback and shared
// ranges are allowed only with WEBHOOK_ALLOW_PRIVATE=1 (tests, trusted networks); link-local (cloud metadata),
// unspecified and multicast addresses never. Checked on the address actually connected to (the socket's lookup,
// so a DNS answer cannot change between the check and the connection) and on every redirect hop.
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';

const never = new BlockList();
never.addSubnet('0.0.0.0', 8, 'ipv4');
never.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local: cloud metadata services
never.addSubnet('224.0.0.0', 4, 'ipv4'); // multicast
never.addSubnet('240.0.0.0', 4, 'ipv4'); // reserved, broadcast
never.addAddress('::', 'ipv6');
never.addSubnet('fe80::', 10, 'ipv6');
never.addSubnet('ff00::', 8, 'ipv6');

const privateRanges = new BlockList();
privateRanges.addSubnet('10.0.0.0', 8, 'ipv4');
privateRanges.addSubnet('172.16.0.0', 12, 'ipv4');
privateRanges.addSubnet('192.168.0.0', 16, 'ipv4');
privateRanges.addSubnet('127.0.0.0', 8, 'ipv4');
privateRanges.addSubnet('100.64.0.0', 10, 'ipv4'); // carrier-grade NAT
privateRanges.addSubnet('198.18.0.0', 15, 'ipv4'); // benchmarking
privateRanges.addAddress('::1', 'ipv6');
privateRanges.addSubnet('fc00::', 7, 'ipv6'); // unique local

/** Why an address may not be reached, or null when it may. */
export function blockedReason(address: string, allowPrivate: boolean): string | null {
  let ip = address;
  let family = isIP(ip);
  if (family === 0) return `not an IP address: ${address}`;
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) {
    ip = mapped[1];
    family = 4;
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (never.check(ip, type)) return `the address ${address} is never reachable by webhooks (link-local, multicast or unspecified)`;
  if (!allowPrivate && privateRanges.check(ip, type)) {
    return `the address ${address} is private or loopback (set WEBHOOK_ALLOW_PRIVATE=1 to allow it)`;
  }
  return null;
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
