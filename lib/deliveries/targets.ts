import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where an editor may point a delivery. The portal's server would otherwise be a way to reach machines
 * only it can reach (SSRF): SFTP hosts and webhook URLs on loopback, private, link-local or unique-local
 * addresses are refused unless DELIVERY_ALLOW_PRIVATE_TARGETS is set, checked when a delivery is saved
 * and again (after DNS) when it runs. Webhooks must use https unless that setting is on.
 */

const inside = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  inside.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  inside.addSubnet(net, bits, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is.
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return isPrivateAddress(mapped[1]!);
  const family = isIP(address);
  if (family === 0) return false;
  return inside.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** Null when `host` may be delivered to; otherwise why not. */
export async function targetProblem(host: string, allowPrivate: boolean): Promise<string | null> {
  if (allowPrivate) return null;
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(bare) ? [bare] : (await lookup(bare, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    return `${host} does not resolve`;
  }
  const blocked = addresses.find(isPrivateAddress);
  return blocked
    ? `${host} is on a loopback or private network (${blocked}); set DELIVERY_ALLOW_PRIVATE_TARGETS=1 if that is intended`
    : null;
}

export function webhookUrlProblem(url: string, allowPrivate: boolean): string | null {
  const parsed = new URL(url);
  if (parsed.username || parsed.password) return 'must not hold credentials (use the secret)';
  if (parsed.protocol !== 'https:' && !allowPrivate) return 'must be an https URL';
  return null;
}
