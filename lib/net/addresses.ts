import { BlockList, isIP } from 'node:net';

/**
 * Address helpers shared by configuration (which upstreams may be plain http, which proxies are
 * trusted) and the sign-in limits (which address a request comes from). Pure: no I/O.
 */

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** A bare address: brackets and an IPv4-mapped IPv6 prefix removed ("[::ffff:10.0.0.1]" → "10.0.0.1"). */
export function normaliseAddress(value: string): string {
  const bare = value.trim().replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  return mapped ? mapped[1]! : bare.toLowerCase();
}

function family(address: string): 'ipv4' | 'ipv6' | null {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : null;
}

/**
 * Which targets deliveries and webhooks may reach besides the public internet: any private or loopback one
 * (DELIVERY_ALLOW_PRIVATE_TARGETS=1), loopback alone (the sandbox's default: its upstream is loopback too), or none.
 */
export type PrivateTargets = boolean | 'loopback';

export function isLoopbackHost(hostname: string): boolean {
  const address = normaliseAddress(hostname);
  if (address === 'localhost' || address.endsWith('.localhost')) return true;
  const kind = family(address);
  return kind !== null && LOOPBACK.check(address, kind);
}

/** Parses "10.0.0.1, 192.168.0.0/16, ::1" into a BlockList; throws naming the first bad entry. */
export function parseAddressList(value: string): { list: BlockList; entries: string[] } {
  const list = new BlockList();
  const entries = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const bare = normaliseAddress(address);
    const kind = family(bare);
    const bits = prefix === undefined ? null : Number(prefix);
    const max = kind === 'ipv4' ? 32 : 128;
    if (!kind || (bits !== null && (!Number.isInteger(bits) || bits < 0 || bits > max))) {
      throw new Error(`"${entry}" is not an IP address or CIDR range`);
    }
    if (bits === null) list.addAddress(bare, kind);
    else list.addSubnet(bare, bits, kind);
  }
  return { list, entries };
}

export function listHas(list: BlockList, address: string): boolean {
  const bare = normaliseAddress(address);
  const kind = family(bare);
  return kind !== null && list.check(bare, kind);
}

/**
 * The client's address: the socket's peer, unless that peer is a trusted proxy, in which case the
 * right-most X-Forwarded-For hop that is not itself trusted (the left part of that header is whatever
 * the client wrote, so it is never believed).
 */
export function clientAddressFrom(peer: string | null, forwardedFor: string | null, trusted: BlockList): string {
  if (!peer) return 'unknown';
  let address = normaliseAddress(peer);
  if (!listHas(trusted, address)) return address;
  const hops = (forwardedFor ?? '')
    .split(',')
    .map((hop) => normaliseAddress(hop))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    address = hops[i]!;
    if (!family(address)) return 'unknown';
    if (!listHas(trusted, address)) return address;
  }
  return address;
}

/** The key a limit counts an address under: IPv6 by its /64, since one host usually holds a whole /64. */
export function addressBucket(address: string): string {
  const bare = normaliseAddress(address);
  if (family(bare) !== 'ipv6') return bare;
  const groups = expandIpv6(bare);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

function expandIpv6(address: string): string[] {
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = address.includes('::') ? Array(8 - left.length - right.length).fill('0') : [];
  return [...left, ...fill, ...right].map((group) => group.replace(/^0+(?=.)/, ''));
}
