// IP literals, pure: parsing IPv4/IPv6 text into bytes, and which addresses are "special"
// (not the public internet): a name that resolves to one of them is refused unless the
// allowlist names that address or `localhost` (DNS rebinding; docs/net-allowlist.md).

export type IpBytes = readonly number[]; // 4 or 16 bytes

export function parseIpv4(text: string): IpBytes | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    // Decimal only, no leading zeros (inet_aton's octal/hex forms are a classic filter bypass).
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    out.push(v);
  }
  return out;
}

export function parseIpv6(text: string): IpBytes | undefined {
  if (text.includes('%')) return undefined; // zone ids are refused
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    const parts = s.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseIpv4(p);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return undefined;
        out.push(Number.parseInt(p, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  let all: number[];
  if (halves.length === 2) {
    const fill = 8 - head.length - tail.length;
    if (fill < 1) return undefined;
    all = [...head, ...new Array<number>(fill).fill(0), ...tail];
  } else all = head;
  if (all.length !== 8) return undefined;
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** IPv4 or IPv6 (brackets allowed around v6); undefined when `text` is not an IP literal. */
export function parseIp(text: string): IpBytes | undefined {
  const t = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  return t.includes(':') ? parseIpv6(t) : parseIpv4(t);
}

export function formatIp(ip: IpBytes): string {
  if (ip.length === 4) return ip.join('.');
  const g: string[] = [];
  for (let i = 0; i < 16; i += 2) g.push(((ip[i]! << 8) | ip[i + 1]!).toString(16));
  // Compress the longest run of zero groups (RFC 5952).
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && g[j] === '0') j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
  }
  if (best < 0) return g.join(':');
  return `${g.slice(0, best).join(':')}::${g.slice(best + bestLen).join(':')}`;
}

export function sameIp(a: IpBytes, b: IpBytes): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function inPrefix(ip: IpBytes, prefix: IpBytes, bits: number): boolean {
  if (ip.length !== prefix.length) return false;
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if ((ip[byte]! & mask) !== (prefix[byte]! & mask)) return false;
  }
  return true;
}

const V4_SPECIAL: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved/broadcast'],
];

const V6_SPECIAL: readonly [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::ffff:0:0', 96, 'IPv4-mapped'],
  ['64:ff9b::', 96, 'NAT64'],
  ['100::', 64, 'discard'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
];

const parsedV4 = V4_SPECIAL.map(([p, b, why]) => [parseIpv4(p)!, b, why] as const);
const parsedV6 = V6_SPECIAL.map(([p, b, why]) => [parseIpv6(p)!, b, why] as const);

/** Why `ip` is not a public internet address, or undefined when it is one. */
export function specialReason(ip: IpBytes): string | undefined {
  const table = ip.length === 4 ? parsedV4 : parsedV6;
  for (const [prefix, bits, why] of table) if (inPrefix(ip, prefix, bits)) return why;
  if (ip.length === 16 && ip[0] === 0x20 && ip[1] === 0x02) {
    // 6to4 carries an IPv4 address in bytes 2..5: refuse it when that address is special.
    const inner = specialReason(ip.slice(2, 6));
    if (inner) return `6to4 of a ${inner} address`;
  }
  return undefined;
}

export function isLoopback(ip: IpBytes): boolean {
  return ip.length === 4 ? ip[0] === 127 : sameIp(ip, parsedV6[1]![0]);
}
