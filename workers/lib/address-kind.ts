/**
 * What kind of destination an IP address is, for the upstream URL rules (url-safety.ts). Parsing
 * and prefix matching are ipaddr.js's; the tables are ours, so the policy reads in one place:
 * every entry of the IANA IPv4 and IPv6 Special-Purpose Address Registries (globally reachable or
 * not: no MCP upstream lives in any of them), multicast, cloud metadata addresses, and — for IPv6 —
 * everything outside global unicast 2000::/3.
 *
 * An IPv6 address that carries an IPv4 address (IPv4-mapped, -compatible, -translated, NAT64,
 * 6to4, Teredo, ISATAP) reaches that IPv4 host through some translator or tunnel, so it is judged
 * by the carried address as well, and the stricter verdict wins.
 */
import ipaddr from "ipaddr.js";

/** Strictest first: metadata and link-local are never reachable; the rest only in local dev. */
export const ADDRESS_KINDS = ["metadata", "link_local", "loopback", "private", "special", "public"] as const;
export type AddressKind = (typeof ADDRESS_KINDS)[number];

export interface AddressVerdict {
  kind: AddressKind;
  /** What the range is, e.g. "benchmarking, 198.18.0.0/15"; empty for public addresses. */
  range: string;
  /** The carried IPv4 address the verdict comes from, when it is not the address's own. */
  via?: string;
}

interface Range {
  prefix: [ipaddr.IPv4 | ipaddr.IPv6, number];
  kind: AddressKind;
  range: string;
}

function table(rows: readonly [cidr: string, kind: AddressKind, name: string][]): Range[] {
  return rows
    .map(([cidr, kind, name]) => ({ prefix: ipaddr.parseCIDR(cidr), kind, range: `${name}, ${cidr}` }))
    .sort((a, b) => b.prefix[1] - a.prefix[1]); // longest prefix first: the most specific name wins
}

const IPV4_RANGES = table([
  // 0.0.0.0/8 "this network": connecting to 0.0.0.0 reaches the local host on common stacks.
  ["0.0.0.0/8", "loopback", "this network"],
  ["10.0.0.0/8", "private", "private-use"],
  ["100.64.0.0/10", "private", "shared address space"],
  ["127.0.0.0/8", "loopback", "loopback"],
  ["169.254.0.0/16", "link_local", "link-local"],
  ["172.16.0.0/12", "private", "private-use"],
  ["192.0.0.0/24", "special", "IETF protocol assignments"],
  ["192.0.2.0/24", "special", "documentation"],
  ["192.31.196.0/24", "special", "AS112-v4"],
  ["192.52.193.0/24", "special", "AMT"],
  ["192.88.99.0/24", "special", "deprecated 6to4 relay anycast"],
  ["192.168.0.0/16", "private", "private-use"],
  ["192.175.48.0/24", "special", "direct delegation AS112 service"],
  ["198.18.0.0/15", "special", "benchmarking"],
  ["198.51.100.0/24", "special", "documentation"],
  ["203.0.113.0/24", "special", "documentation"],
  ["224.0.0.0/4", "special", "multicast"],
  ["240.0.0.0/4", "special", "reserved"],
  ["255.255.255.255/32", "special", "limited broadcast"],
  // Cloud instance-metadata services.
  ["169.254.169.254/32", "metadata", "instance metadata (AWS, GCP, Azure, OCI, …)"],
  ["169.254.170.2/32", "metadata", "ECS task metadata"],
  ["169.254.0.23/32", "metadata", "Tencent Cloud metadata"],
  ["100.100.100.200/32", "metadata", "Alibaba Cloud metadata"],
  ["192.0.0.192/32", "metadata", "Oracle Cloud metadata"],
]);

const IPV6_RANGES = table([
  // The unspecified address, like 0.0.0.0, reaches the local host.
  ["::/128", "loopback", "unspecified"],
  ["::1/128", "loopback", "loopback"],
  ["::ffff:0:0/96", "special", "IPv4-mapped"],
  ["::/96", "special", "IPv4-compatible (deprecated)"],
  ["::ffff:0:0:0/96", "special", "IPv4-translated"],
  ["64:ff9b::/96", "special", "IPv4/IPv6 translation"],
  ["64:ff9b:1::/48", "private", "local-use IPv4/IPv6 translation"],
  ["100::/64", "special", "discard-only"],
  ["100:0:0:1::/64", "special", "dummy prefix"],
  ["2001::/23", "special", "IETF protocol assignments"],
  ["2001::/32", "special", "Teredo"],
  ["2001:1::1/128", "special", "port control protocol anycast"],
  ["2001:1::2/128", "special", "TURN anycast"],
  ["2001:1::3/128", "special", "DNS-SD service registration anycast"],
  ["2001:2::/48", "special", "benchmarking"],
  ["2001:3::/32", "special", "AMT"],
  ["2001:4:112::/48", "special", "AS112-v6"],
  ["2001:10::/28", "special", "deprecated ORCHID"],
  ["2001:20::/28", "special", "ORCHIDv2"],
  ["2001:30::/28", "special", "drone remote ID protocol entity tags"],
  ["2001:db8::/32", "special", "documentation"],
  ["2002::/16", "special", "6to4"],
  ["2620:4f:8000::/48", "special", "direct delegation AS112 service"],
  ["3fff::/20", "special", "documentation"],
  ["5f00::/16", "special", "segment routing SIDs"],
  ["fc00::/7", "private", "unique-local"],
  ["fe80::/10", "link_local", "link-local"],
  ["fec0::/10", "private", "site-local (deprecated)"],
  ["ff00::/8", "special", "multicast"],
  ["fd00:ec2::254/128", "metadata", "AWS instance metadata"],
  ["fd20:ce::254/128", "metadata", "GCP instance metadata"],
]);

const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

function lookup(address: ipaddr.IPv4 | ipaddr.IPv6, ranges: readonly Range[]): Range | undefined {
  return ranges.find((r) => r.prefix[0].kind() === address.kind() && address.match(r.prefix));
}

function ownVerdict(address: ipaddr.IPv4 | ipaddr.IPv6): AddressVerdict {
  if (address instanceof ipaddr.IPv4) {
    const hit = lookup(address, IPV4_RANGES);
    return hit ? { kind: hit.kind, range: hit.range } : { kind: "public", range: "" };
  }
  const hit = lookup(address, IPV6_RANGES);
  if (hit) return { kind: hit.kind, range: hit.range };
  if (!address.match(GLOBAL_UNICAST)) return { kind: "special", range: "outside global unicast, 2000::/3" };
  return { kind: "public", range: "" };
}

const v4 = (bytes: readonly number[]) => new ipaddr.IPv4(bytes.map((b) => b & 0xff));

interface Carried {
  /** Where the address format puts the IPv4 address. */
  certain: ipaddr.IPv4[];
  /**
   * Where it may sit under another prefix length of the local-use NAT64 prefix: only a
   * never-reachable verdict is taken from these (the other readings are noise).
   */
  possible: ipaddr.IPv4[];
}

/** The IPv4 addresses an IPv6 address carries, by the layouts of RFC 4291, 6052, 6145, 3056, 4380 and 5214. */
export function carriedIpv4(address: ipaddr.IPv6): Carried {
  const b = address.toByteArray();
  const p = address.parts;
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  const last32 = v4(b.slice(12, 16));
  const certain: ipaddr.IPv4[] = [];
  const possible: ipaddr.IPv4[] = [];
  // IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96, IPv4-translated ::ffff:0:0:0/96.
  if (zeros(0, 5) && (p[5] === 0xffff || p[5] === 0)) certain.push(last32);
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) certain.push(last32);
  // NAT64: the well-known prefix 64:ff9b::/96; the local-use 64:ff9b:1::/48 as a /96, or with any
  // other RFC 6052 prefix length it can hold (/48, /56, /64; bits 64–71 are the u-octet).
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) certain.push(last32);
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 1) {
    certain.push(last32);
    possible.push(v4([b[6]!, b[7]!, b[9]!, b[10]!]), v4([b[7]!, b[9]!, b[10]!, b[11]!]), v4(b.slice(9, 13)));
  }
  // 6to4 2002:AABB:CCDD::/48.
  if (p[0] === 0x2002) certain.push(v4(b.slice(2, 6)));
  // Teredo 2001:0::/32: the server in bits 32–63, the client in the last 32 bits, inverted.
  if (p[0] === 0x2001 && p[1] === 0) certain.push(v4(b.slice(4, 8)), v4(b.slice(12, 16).map((x) => ~x)));
  // ISATAP interface identifier (any prefix): 0000:5efe or 0200:5efe, then the IPv4 address.
  if ((b[8] === 0 || b[8] === 2) && b[9] === 0 && b[10] === 0x5e && b[11] === 0xfe) certain.push(last32);
  // An all-zero field carries nothing (it is the address's own prefix padding).
  const something = (a: ipaddr.IPv4) => a.octets.some((octet) => octet !== 0);
  return { certain: certain.filter(something), possible: possible.filter(something) };
}

function strictness(kind: AddressKind): number {
  return ADDRESS_KINDS.indexOf(kind);
}

const NEVER_REACHABLE = strictness("link_local");

/** The verdict for an address, IPv4 or IPv6 (as `ipaddr.parse` reads it). */
export function classifyAddress(literal: string): AddressVerdict {
  const address = ipaddr.parse(literal);
  let verdict = ownVerdict(address);
  if (address instanceof ipaddr.IPv6) {
    const { certain, possible } = carriedIpv4(address);
    const readings = [...certain.map((a) => ({ a, any: true })), ...possible.map((a) => ({ a, any: false }))];
    for (const { a, any } of readings) {
      const inner = ownVerdict(a);
      const rank = strictness(inner.kind);
      if (rank < strictness(verdict.kind) && (any || rank <= NEVER_REACHABLE)) verdict = { ...inner, via: a.toString() };
    }
  }
  return verdict;
}

/** Whether `host` (a URL's hostname: IPv6 in brackets) is an IP address literal. */
export function ipLiteral(host: string): string | undefined {
  if (host.startsWith("[") && host.endsWith("]")) return host.slice(1, -1);
  return ipaddr.IPv4.isValidFourPartDecimal(host) ? host : undefined;
}
