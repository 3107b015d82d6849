/**
 * Which addresses an alert target may reach. Notifications are requests this server makes on an operator's
 * behalf; without this policy a target URL reaches whatever the server can (its own loopback ports, the cloud
 * metadata service, the private network), and the delivery log turns it into a port scanner. Pure: the caller
 * resolves the host name and hands in every address it resolved to; the one it then connects to is among them.
 */

/** Why an address is refused; every other address is public. */
export type BlockedCategory =
  | 'loopback'
  | 'link-local'
  | 'private'
  | 'unspecified'
  | 'shared'
  | 'multicast'
  | 'reserved'
  | 'own';

/** How a refusal reads in an error message or the delivery log: the kind of address, never the address itself. */
export const BLOCKED_TEXT: Record<BlockedCategory, string> = {
  loopback: 'a loopback address (this machine)',
  'link-local': 'a link-local address (where cloud metadata services answer)',
  private: 'a private-network address',
  unspecified: 'an unspecified address',
  shared: 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  own: "one of this server's own addresses",
};

/** One `--allow-target` / `LENS_ALLOW_TARGETS` entry: a host name or address, and the port if one was named. */
export interface AllowEntry {
  /** Lower case without a trailing dot, or an address in canonical form (`canonicalAddress`). */
  host: string;
  /** Null: any port. */
  port: number | null;
}

export type TargetVerdict = { allowed: true } | { allowed: false; category: BlockedCategory };

type Range = readonly [prefix: string, bits: number, category: BlockedCategory | 'embedded'];

/** IANA special-purpose IPv4 blocks that are not globally reachable (RFC 6890 and successors). */
const IPV4_RANGES: readonly Range[] = [
  ['0.0.0.0', 8, 'unspecified'], // "this network": connecting to 0.0.0.0 reaches this machine
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'], // carrier-grade NAT; also where some clouds put their metadata service
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'], // 169.254.169.254: the cloud metadata service
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // and 255.255.255.255, broadcast
];

/**
 * IPv6 blocks, most specific first. `embedded`: the block carries an IPv4 address in its last 32 bits (mapped,
 * NAT64) or bits 16-48 (6to4), which is judged as IPv4 is.
 */
const IPV6_RANGES: readonly Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::ffff:0:0', 96, 'embedded'], // IPv4-mapped: ::ffff:127.0.0.1 is 127.0.0.1
  ['::', 96, 'reserved'], // IPv4-compatible, deprecated
  ['64:ff9b::', 96, 'embedded'], // NAT64
  ['64:ff9b:1::', 48, 'private'], // local-use NAT64
  ['100::', 64, 'reserved'], // discard-only
  ['2001::', 32, 'reserved'], // Teredo: the IPv4 address inside is obfuscated
  ['2001:db8::', 32, 'reserved'], // documentation
  ['2002::', 16, 'embedded'], // 6to4
  ['fc00::', 7, 'private'], // unique local, e.g. fd00:ec2::254, a metadata service
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'private'], // site-local, deprecated
  ['ff00::', 8, 'multicast'],
];

/** Dotted-decimal IPv4 (four parts, each 0-255), as an unsigned 32-bit number; null for anything else. */
function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const byte = Number(part);
    if (byte > 255) return null;
    value = value * 256 + byte;
  }
  return value;
}

/** IPv6 text (brackets and a zone index allowed) as its eight 16-bit groups; null when it is not one. */
function parseIPv6(text: string): number[] | null {
  let body = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = body.indexOf('%');
  if (zone !== -1) body = body.slice(0, zone);
  if (!body.includes(':')) return null;
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] | null => {
    if (part === '') return [];
    const groups: number[] = [];
    const pieces = part.split(':');
    for (const [index, piece] of pieces.entries()) {
      if (index === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIPv4(piece);
        if (v4 === null) return null;
        groups.push(Math.floor(v4 / 65536), v4 % 65536);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
        groups.push(Number.parseInt(piece, 16));
      } else {
        return null;
      }
    }
    return groups;
  };
  const head = groupsOf(halves[0] ?? '');
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? '') : [];
  if (head === null || tail === null) return null;
  // An embedded IPv4 address may only end the address.
  if (halves.length === 2 && head.length > 0 && (halves[0] ?? '').split(':').at(-1)?.includes('.')) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...Array<number>(missing).fill(0), ...tail];
}

function ipv4Text(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

function inIPv4Range(value: number, prefix: string, bits: number): boolean {
  const base = parseIPv4(prefix) ?? 0;
  const size = 2 ** (32 - bits);
  return Math.floor(value / size) === Math.floor(base / size);
}

function inIPv6Range(groups: readonly number[], prefix: string, bits: number): boolean {
  const base = parseIPv6(prefix) ?? [];
  for (let index = 0; index < 8; index++) {
    const left = bits - index * 16;
    if (left <= 0) return true;
    const mask = left >= 16 ? 0xffff : (0xffff << (16 - left)) & 0xffff;
    if (((groups[index] ?? 0) & mask) !== ((base[index] ?? 0) & mask)) return false;
  }
  return true;
}

function classifyIPv4(value: number): BlockedCategory | null {
  for (const [prefix, bits, category] of IPV4_RANGES) {
    if (inIPv4Range(value, prefix, bits)) return category === 'embedded' ? null : category;
  }
  return null;
}

/** The IPv4 address an IPv6 address stands for (mapped, NAT64, 6to4), or null when it stands for none. */
function embeddedIPv4(groups: readonly number[]): number | null {
  const at = (index: number) => groups[index] ?? 0;
  if (inIPv6Range(groups, '2002::', 16)) return at(1) * 65536 + at(2);
  if (inIPv6Range(groups, '::ffff:0:0', 96) || inIPv6Range(groups, '64:ff9b::', 96)) return at(6) * 65536 + at(7);
  return null;
}

/**
 * What kind of address `text` is: a blocked category, null for a public address, undefined when `text` is not an
 * IP address at all (a host name).
 */
export function classifyAddress(text: string): BlockedCategory | null | undefined {
  const v4 = parseIPv4(text);
  if (v4 !== null) return classifyIPv4(v4);
  const v6 = parseIPv6(text);
  if (v6 === null) return undefined;
  for (const [prefix, bits, category] of IPV6_RANGES) {
    if (!inIPv6Range(v6, prefix, bits)) continue;
    if (category !== 'embedded') return category;
    const inner = embeddedIPv4(v6);
    return inner === null ? 'reserved' : classifyIPv4(inner);
  }
  // Only 2000::/3 is handed out as global unicast; the rest of the space is unassigned.
  return inIPv6Range(v6, '2000::', 3) ? null : 'reserved';
}

/**
 * One spelling per address, for comparing them: dotted decimal for IPv4 and IPv4-mapped IPv6, eight lower-case
 * hex groups for other IPv6; undefined when `text` is not an address.
 */
export function canonicalAddress(text: string): string | undefined {
  const v4 = parseIPv4(text);
  if (v4 !== null) return ipv4Text(v4);
  const v6 = parseIPv6(text);
  if (v6 === null) return undefined;
  if (inIPv6Range(v6, '::ffff:0:0', 96)) return ipv4Text((v6[6] ?? 0) * 65536 + (v6[7] ?? 0));
  return v6.map((group) => group.toString(16)).join(':');
}

/** A host as entries and URLs are compared: an address canonically, a name in lower case without a final dot. */
export function hostKey(host: string): string {
  return canonicalAddress(host) ?? host.toLowerCase().replace(/\.$/, '');
}

const HOST_NAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/i;

/**
 * Reads `HOST[:PORT]`: a host name, an IPv4 address, `[IPv6]` or a bare IPv6 address (no port then), optionally
 * with a port of 1-65535. Null when the entry is none of these.
 */
export function parseAllowEntry(text: string): AllowEntry | null {
  const entry = text.trim();
  if (entry === '') return null;
  let host = entry;
  let portText: string | null = null;
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    if (close === -1) return null;
    host = entry.slice(0, close + 1);
    const rest = entry.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return null;
      portText = rest.slice(1);
    }
    if (parseIPv6(host) === null) return null;
  } else if (entry.split(':').length === 2) {
    [host, portText] = entry.split(':') as [string, string];
  } else if (entry.includes(':') && parseIPv6(entry) === null) {
    return null;
  }
  let port: number | null = null;
  if (portText !== null) {
    if (!/^\d{1,5}$/.test(portText)) return null;
    port = Number(portText);
    if (port < 1 || port > 65535) return null;
  }
  if (canonicalAddress(host) === undefined && !HOST_NAME.test(host)) return null;
  return { host: hostKey(host), port };
}

/** Every entry read, and the ones that could not be. */
export function parseAllowList(texts: readonly string[]): { entries: AllowEntry[]; invalid: string[] } {
  const entries: AllowEntry[] = [];
  const invalid: string[] = [];
  for (const text of texts) {
    const entry = parseAllowEntry(text);
    if (entry === null) invalid.push(text);
    else entries.push(entry);
  }
  return { entries, invalid };
}

function allows(allow: readonly AllowEntry[], host: string, port: number): boolean {
  return allow.some((entry) => entry.host === host && (entry.port === null || entry.port === port));
}

/**
 * Whether a target at `host`:`port`, which resolved to `addresses`, may be sent to. An allow-list entry naming the
 * host (or one resolved address) lets it through; otherwise every address must be public and none this server's
 * own. With no address there is nothing that may be connected to.
 */
export function judgeTarget(target: {
  host: string;
  port: number;
  addresses: readonly string[];
  allow: readonly AllowEntry[];
  own?: readonly string[];
}): TargetVerdict {
  if (allows(target.allow, hostKey(target.host), target.port)) return { allowed: true };
  if (target.addresses.length === 0) return { allowed: false, category: 'unspecified' };
  const own = new Set((target.own ?? []).map(hostKey));
  for (const address of target.addresses) {
    const key = canonicalAddress(address);
    // A resolver answering with something that is not an address is not to be connected to.
    if (key === undefined) return { allowed: false, category: 'reserved' };
    if (allows(target.allow, key, target.port)) continue;
    const category = classifyAddress(key);
    if (category !== null && category !== undefined) return { allowed: false, category };
    if (own.has(key)) return { allowed: false, category: 'own' };
  }
  return { allowed: true };
}
