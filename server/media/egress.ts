// Outbound guard for link downloads: yt-dlp runs with --proxy pointing at a loopback HTTP proxy (the `proxy`
// package) that resolves every host yt-dlp asks for, the first one and each redirect, and refuses any that
// resolves to an address that is not public (the caller's check: isPublicAddress of server/net/addresses.ts by
// default, which sees through IPv4-mapped, NAT64, 6to4 and Teredo forms). The connection then goes to the address
// that was checked (the host is replaced by it), so a DNS answer that changes between check and connect changes
// nothing.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';
import { createProxy } from 'proxy';

export type AddressCheck = (ip: string, port: number) => boolean;
export type HostLookup = (host: string) => Promise<string[]>;

export interface EgressGuard {
  /** http://127.0.0.1:<port>, for yt-dlp's --proxy. */
  url: string;
  /** host:port targets refused so far (to explain a failed download). */
  refused: string[];
  close(): Promise<void>;
}

const systemLookup: HostLookup = async (host) => (await dnsLookup(host, { all: true })).map((a) => a.address);

/** The host and port a proxy request asks for: "host:port" (CONNECT) or an absolute http URL. */
function targetOf(req: IncomingMessage): { host: string; port: number; rewrite: (ip: string) => string } | null {
  const raw = req.url ?? '';
  if (req.method === 'CONNECT') {
    const i = raw.lastIndexOf(':');
    if (i <= 0) return null;
    const host = raw.slice(0, i).replace(/^\[|\]$/g, '');
    const port = Number(raw.slice(i + 1));
    if (!Number.isInteger(port) || port <= 0 || port > 65535) return null;
    return { host, port, rewrite: (ip) => `${isIP(ip) === 6 ? `[${ip}]` : ip}:${port}` };
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:') return null;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = u.port ? Number(u.port) : 80;
  return {
    host,
    port,
    rewrite: (ip) => {
      u.hostname = isIP(ip) === 6 ? `[${ip}]` : ip;
      return u.toString();
    },
  };
}

/**
 * Starts a guard for one download. `allow` decides on each resolved address (default: public addresses only);
 * `lookup` resolves names (default: the system resolver).
 */
export async function startEgressGuard(o: { allow: AddressCheck; lookup?: HostLookup }): Promise<EgressGuard> {
  const lookup = o.lookup ?? systemLookup;
  const refused: string[] = [];
  const server = createProxy(createServer());
  server.authenticate = async (req) => {
    const t = targetOf(req);
    if (!t) return false;
    let addrs: string[];
    try {
      addrs = isIP(t.host) ? [t.host] : await lookup(t.host);
    } catch {
      addrs = [];
    }
    const ok = addrs.length > 0 && addrs.every((ip) => o.allow(ip, t.port));
    if (!ok) {
      refused.push(`${isIP(t.host) === 6 ? `[${t.host}]` : t.host}:${t.port}`);
      return false;
    }
    // Connect to the address that was checked.
    req.url = t.rewrite(addrs[0]!);
    return true;
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
