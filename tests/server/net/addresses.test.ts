// The one address classification of both egress guards (link downloads and webhooks): every special range,
// IPv4 and IPv6, each written in every notation that leads to it (dotted, decimal and hex as the URL parser
// turns them into a host, IPv4-mapped, NAT64, 6to4, Teredo), and public addresses that must pass.
import { describe, expect, it } from 'vitest';
import { blockedReason, urlProblem } from '../../../server/domains/webhooks/ssrf';
import { checkIngestLink } from '../../../server/media/link';
import { classifyAddress, isPublicAddress, type AddressKind } from '../../../server/net/addresses';

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/** Every way to write an IPv4 address; `tunnel` marks the forms through a translator or a tunnel. */
function v4Forms(ip: string): Array<{ form: string; address: string; tunnel: boolean }> {
  const o = ip.split('.').map(Number);
  const n = ((o[0]! << 24) >>> 0) + (o[1]! << 16) + (o[2]! << 8) + o[3]!;
  const hi = hex4(n >>> 16);
  const lo = hex4(n & 0xffff);
  const host = (s: string) => new URL(`http://${s}/`).hostname.replace(/^\[|\]$/g, '');
  return [
    { form: 'dotted', address: ip, tunnel: false },
    { form: 'decimal (raw)', address: String(n), tunnel: false },
    { form: 'decimal (URL host)', address: host(String(n)), tunnel: false },
    { form: 'hex (raw)', address: `0x${n.toString(16)}`, tunnel: false },
    { form: 'hex (URL host)', address: host(`0x${n.toString(16)}`), tunnel: false },
    { form: 'IPv4-mapped dotted', address: `::ffff:${ip}`, tunnel: false },
    { form: 'IPv4-mapped hex', address: `::ffff:${hi}:${lo}`, tunnel: false },
    { form: 'IPv4-mapped (URL host)', address: host(`[::ffff:${ip}]`), tunnel: false },
    { form: 'IPv4-mapped expanded', address: `0:0:0:0:0:FFFF:${hi}:${lo}`, tunnel: false },
    { form: 'NAT64 hex', address: `64:ff9b::${hi}:${lo}`, tunnel: true },
    { form: 'NAT64 dotted', address: `64:ff9b::${ip}`, tunnel: true },
    { form: '6to4', address: `2002:${hi}:${lo}::1`, tunnel: true },
    // Teredo: server 65.54.227.120 (public), the client address inverted in the last 32 bits.
    { form: 'Teredo', address: `2001:0:4136:e378:8000:63bf:${hex4((n >>> 16) ^ 0xffff)}:${hex4((n & 0xffff) ^ 0xffff)}`, tunnel: true },
  ];
}

/** Special IPv4 ranges: one or two addresses each, and whether webhooks may reach them with WEBHOOK_ALLOW_PRIVATE. */
const specialV4: Array<[string, string, Exclude<AddressKind, 'public'>]> = [
  ['0.0.0.0', 'unspecified', 'forbidden'],
  ['0.1.2.3', 'unspecified', 'forbidden'], // 0.0.0.0/8
  ['10.0.0.1', 'private', 'internal'],
  ['10.255.255.254', 'private', 'internal'],
  ['172.16.0.1', 'private', 'internal'],
  ['172.31.255.254', 'private', 'internal'],
  ['192.168.1.1', 'private', 'internal'],
  ['127.0.0.1', 'loopback', 'internal'],
  ['127.255.255.254', 'loopback', 'internal'],
  ['169.254.169.254', 'linkLocal', 'forbidden'], // cloud metadata
  ['169.254.0.1', 'linkLocal', 'forbidden'],
  ['100.64.0.1', 'carrierGradeNat', 'internal'],
  ['100.127.255.254', 'carrierGradeNat', 'internal'],
  ['198.18.0.1', 'reserved', 'forbidden'], // benchmarking 198.18/15
  ['198.19.255.254', 'reserved', 'forbidden'],
  ['192.0.0.1', 'reserved', 'forbidden'], // IETF protocol assignments
  ['192.0.2.1', 'reserved', 'forbidden'], // TEST-NET-1
  ['198.51.100.1', 'reserved', 'forbidden'], // TEST-NET-2
  ['203.0.113.1', 'reserved', 'forbidden'], // TEST-NET-3
  ['192.88.99.1', 'reserved', 'forbidden'], // 6to4 relay anycast
  ['240.0.0.1', 'reserved', 'forbidden'],
  ['255.255.255.255', 'broadcast', 'forbidden'],
  ['224.0.0.1', 'multicast', 'forbidden'],
  ['239.255.255.250', 'multicast', 'forbidden'],
];

/** Special IPv6 ranges, each in its compressed, expanded, upper-case and URL-host form. */
const specialV6: Array<[string, string, Exclude<AddressKind, 'public'>]> = [
  ['::', 'unspecified', 'forbidden'],
  ['::1', 'loopback', 'internal'],
  ['fe80::1', 'linkLocal', 'forbidden'],
  ['febf:ffff::1', 'linkLocal', 'forbidden'],
  ['fc00::1', 'uniqueLocal', 'internal'],
  ['fd12:3456:789a::1', 'uniqueLocal', 'internal'],
  ['ff02::1', 'multicast', 'forbidden'],
  ['ff0e::101', 'multicast', 'forbidden'],
  ['fec0::1', 'deprecatedSiteLocal', 'forbidden'],
  ['2001:db8::1', 'reserved', 'forbidden'], // documentation
  ['3fff::1', 'reserved', 'forbidden'], // documentation (RFC 9637)
  ['2001:2::1', 'benchmarking', 'forbidden'],
  ['100::1', 'discard', 'forbidden'],
  ['::7f00:1', 'reserved', 'forbidden'], // IPv4-compatible (deprecated)
  ['::a00:1', 'reserved', 'forbidden'],
  ['64:ff9b:1::1', 'unspecified', 'forbidden'], // local-use NAT64 carrying 0.0.0.1
];

function expand(v6: string): string {
  const [head, tail] = v6.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const mid = tail === undefined ? [] : Array(8 - h.length - t.length).fill('0');
  return [...h, ...mid, ...t].map((p) => p.padStart(4, '0')).join(':');
}

function v6Forms(ip: string): Array<{ form: string; address: string }> {
  return [
    { form: 'compressed', address: ip },
    { form: 'expanded', address: expand(ip) },
    { form: 'upper case', address: ip.toUpperCase() },
    { form: 'URL host', address: new URL(`http://[${expand(ip)}]/`).hostname },
  ];
}

const publicV4 = ['8.8.8.8', '1.1.1.1', '151.101.0.217', '93.184.216.34', '100.63.255.255', '100.128.0.1', '172.32.0.1', '198.20.0.1', '11.0.0.1'];
const publicV6 = ['2a00:1450:4001::200e', '2606:4700:4700::1111', '2001:4860:4860::8888', '2600::1'];

const ingest = (address: string) => checkIngestLink('https://vimeo.com/123456', { lookup: async () => [address] });

describe('classifyAddress: special IPv4 ranges in every notation', () => {
  for (const [ip, range, kind] of specialV4) {
    for (const f of v4Forms(ip)) {
      it(`${ip} (${range}) as ${f.form}: ${f.address}`, async () => {
        const v = classifyAddress(f.address);
        expect(v?.range).toBe(range);
        // Through NAT64, 6to4 or Teredo an internal address is never reachable.
        const expected = f.tunnel ? 'forbidden' : kind;
        expect(v?.kind).toBe(expected);
        expect(isPublicAddress(f.address)).toBe(false);
        // The webhook guard: refused without WEBHOOK_ALLOW_PRIVATE; with it only internal, non-tunnelled forms pass.
        expect(blockedReason(f.address, false)).not.toBeNull();
        if (expected === 'internal') expect(blockedReason(f.address, true)).toBeNull();
        else expect(blockedReason(f.address, true)).toMatch(/never reachable by webhooks/);
        // The link guard (the ingest check and the egress proxy share isPublicAddress).
        await expect(ingest(f.address)).rejects.toThrow(/private network address/);
      });
    }
  }
});

describe('classifyAddress: special IPv6 ranges in every notation', () => {
  for (const [ip, range, kind] of specialV6) {
    for (const f of v6Forms(ip)) {
      it(`${ip} (${range}) as ${f.form}: ${f.address}`, async () => {
        expect(classifyAddress(f.address)).toMatchObject({ range, kind });
        expect(isPublicAddress(f.address)).toBe(false);
        expect(blockedReason(f.address, false)).not.toBeNull();
        if (kind === 'internal') expect(blockedReason(f.address, true)).toBeNull();
        else expect(blockedReason(f.address, true)).toMatch(/never reachable by webhooks/);
        await expect(ingest(f.address)).rejects.toThrow(/private network address/);
      });
    }
  }
});

describe('classifyAddress: public addresses pass', () => {
  for (const ip of publicV4) {
    for (const f of v4Forms(ip)) {
      it(`${ip} as ${f.form}: ${f.address}`, async () => {
        expect(classifyAddress(f.address)).toMatchObject({ kind: 'public', range: 'unicast' });
        expect(isPublicAddress(f.address)).toBe(true);
        expect(blockedReason(f.address, false)).toBeNull();
        await expect(ingest(f.address)).resolves.toBeInstanceOf(URL);
      });
    }
  }
  for (const ip of publicV6) {
    for (const f of v6Forms(ip)) {
      it(`${ip} as ${f.form}: ${f.address}`, async () => {
        expect(classifyAddress(f.address)).toMatchObject({ kind: 'public', range: 'unicast' });
        expect(blockedReason(f.address, false)).toBeNull();
        await expect(ingest(f.address)).resolves.toBeInstanceOf(URL);
      });
    }
  }
  it('a Teredo address whose server is internal is refused even with a public client', () => {
    // server 10.0.0.1 (0a00:0001), client 8.8.8.8 inverted (f7f7:f7f7)
    expect(classifyAddress('2001:0:a00:1:8000:63bf:f7f7:f7f7')).toMatchObject({ kind: 'forbidden', range: 'private' });
  });
  it('not an IP address', () => {
    expect(classifyAddress('example.com')).toBeNull();
    expect(isPublicAddress('example.com')).toBe(false);
    expect(blockedReason('example.com', true)).toMatch(/not an IP address/);
  });
  it('webhook URLs written with an IP literal in any form', () => {
    for (const u of ['http://[64:ff9b::7f00:1]/', 'http://[::ffff:a9fe:a9fe]/', 'http://2852039166/', 'http://0xa9fea9fe/', 'http://[2002:7f00:1::1]/']) {
      expect(urlProblem(u, true), u).toMatch(/never reachable by webhooks/);
    }
    expect(urlProblem('http://[::ffff:7f00:1]/', false)).toMatch(/private or loopback/);
    expect(urlProblem('http://[64:ff9b::808:808]/', false)).toBeNull();
  });
});
