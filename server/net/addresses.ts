// Which addresses outbound requests may reach: the one classification both egress guards use (link downloads,
// redirects included, in server/media/egress.ts; webhook deliveries in server/domains/webhooks/ssrf.ts).
// An address is parsed by ipaddr.js in any notation it accepts (dotted, decimal, hex, octal, short IPv4; any
// IPv6 form), IPv4 carried inside IPv6 is taken out (IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96,
// NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32) and judged as the IPv4 address it leads to, then its
// range decides. Only ipaddr.js's 'unicast' range is public; everything else (loopback, private, link-local and
// the 169.254.169.254 metadata address, unique-local, unspecified, 0.0.0.0/8, broadcast, multicast, carrier-grade
// NAT, benchmarking, documentation, reserved, the IETF ::/8 block ...) is not.
import ipaddr from 'ipaddr.js';

/**
 * public: may be reached.
 * internal: an address of a local or trusted network (loopback, private, unique-local, carrier-grade NAT):
 *   webhooks may reach it when WEBHOOK_ALLOW_PRIVATE=1, link downloads never.
 * forbidden: never reached (link-local and cloud metadata, unspecified, broadcast, multicast, benchmarking,
 *   documentation, reserved; an internal IPv4 address behind NAT64, 6to4 or Teredo).
 */
export type AddressKind = 'public' | 'internal' | 'forbidden';

export interface AddressVerdict {
  kind: AddressKind;
  /** The range the address (or the IPv4 address inside it) falls in: ipaddr.js's name, e.g. 'loopback', 'unicast'. */
  range: string;
  /** The IPv4 address carried inside an IPv6 one, and how ('ipv4Mapped', 'nat64', '6to4', 'teredo'). */
  embedded?: { ipv4: string; via: string };
}

const INTERNAL = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);

function v4(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/** The IPv4 addresses an IPv6 address carries, with the form; [] for a plain IPv6 address. */
function embeddedV4(a: ipaddr.IPv6): Array<{ ip: ipaddr.IPv4; via: string }> {
  const p = a.parts;
  switch (a.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return [{ ip: v4(p[6]!, p[7]!), via: 'ipv4Mapped' }];
    case 'rfc6052': // 64:ff9b::a.b.c.d (and the local-use 64:ff9b:1::/48, whose last 32 bits are the address)
      return [{ ip: v4(p[6]!, p[7]!), via: 'nat64' }];
    case '6to4': // 2002:AABB:CCDD::/48
      return [{ ip: v4(p[1]!, p[2]!), via: '6to4' }];
    case 'teredo': // 2001:0:SERVER:flags:port:~CLIENT
      return [
        { ip: v4(p[2]!, p[3]!), via: 'teredo' },
        { ip: v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff), via: 'teredo' },
      ];
    default:
      return [];
  }
}

function kindOf(range: string): AddressKind {
  if (range === 'unicast') return 'public';
  return INTERNAL.has(range) ? 'internal' : 'forbidden';
}

/** The verdict on one IP address (any notation ipaddr.js parses, brackets and zone id allowed); null if not an IP. */
export function classifyAddress(address: string): AddressVerdict | null {
  const raw = address.trim().replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(raw)) return null;
  const a = ipaddr.parse(raw);
  if (a.kind() === 'ipv4') return { kind: kindOf(a.range()), range: a.range() };
  const v6 = a as ipaddr.IPv6;
  const inner = embeddedV4(v6);
  if (inner.length > 0) {
    const verdicts = inner.map((e) => ({ kind: kindOf(e.ip.range()), range: e.ip.range(), embedded: { ipv4: e.ip.toString(), via: e.via } }));
    const worst = verdicts.find((x) => x.kind === 'forbidden') ?? verdicts.find((x) => x.kind === 'internal') ?? verdicts[0]!;
    // Only the IPv4-mapped form is the same destination as its IPv4 address; through a translator or a tunnel
    // an internal IPv4 address is never a legitimate target.
    if (worst.kind === 'internal' && worst.embedded.via !== 'ipv4Mapped') return { ...worst, kind: 'forbidden' };
    return worst;
  }
  const range = v6.range();
  // ipaddr.js calls the rest of ::/8 (IPv4-compatible ::a.b.c.d and other IETF-reserved addresses) unicast.
  if (range === 'unicast' && v6.parts[0]! < 0x100) return { kind: 'forbidden', range: 'reserved' };
  return { kind: kindOf(range), range };
}

/** True only for an IP address that is public in every form it is written in. Not an IP: false. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address)?.kind === 'public';
}

/** A readable name of the range of a verdict, for error messages. */
export function describeRange(v: AddressVerdict): string {
  const names: Record<string, string> = {
    loopback: 'loopback',
    private: 'private network',
    uniqueLocal: 'unique-local',
    carrierGradeNat: 'carrier-grade NAT',
    benchmarking: 'benchmarking',
    linkLocal: 'link-local / cloud metadata',
    unspecified: 'unspecified',
    broadcast: 'broadcast',
    multicast: 'multicast',
    reserved: 'reserved or documentation',
  };
  const name = names[v.range] ?? v.range;
  return v.embedded && v.embedded.via !== 'ipv4Mapped' ? `${name} behind ${v.embedded.via}` : name;
}
