import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isLoopbackHost, type PrivateTargets } from '../net/addresses';
import { isSealed, sealedOrigin } from '../store/at-rest';

/**
 * Where an editor may point a delivery, and the one address a run connects to. The portal's server would
 * otherwise be a way to reach machines only it can reach (SSRF): a target must resolve only to global
 * unicast addresses (ipaddr.js's ranges: no loopback, private, link-local, carrier-grade NAT, NAT64, 6to4,
 * Teredo, benchmarking, multicast or reserved space) unless DELIVERY_ALLOW_PRIVATE_TARGETS is set. The
 * name is resolved once per run and the connection goes to exactly the address that was checked
 * (DNS rebinding: a second lookup by ssh2 or fetch could answer otherwise). Webhooks must use https unless
 * that setting is on.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));

/** Global unicast only: IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it carries. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

export const isPrivateAddress = (address: string) => !isPublicAddress(address);

export type { PrivateTargets } from '../net/addresses';

const isLoopbackAddress = (address: string) => ipaddr.isValid(address) && ipaddr.process(address).range() === 'loopback';

export type Pinned = { ok: true; address: string; family: 4 | 6 } | { ok: false; problem: string };

/**
 * Resolves `host` once and checks every address it gives: the first is the one to connect to, and only
 * that one. `allowed` decides which addresses pass (global unicast unless private targets are allowed).
 */
export async function pinTarget(
  host: string,
  allowPrivate: PrivateTargets,
  resolver: Resolver = systemResolver,
  allowed: (address: string) => boolean = allowPrivate === true
    ? () => true
    : allowPrivate === 'loopback'
      ? (address) => isPublicAddress(address) || isLoopbackAddress(address)
      : isPublicAddress,
): Promise<Pinned> {
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  if (ipaddr.isValid(bare)) addresses = [{ address: bare, family: ipaddr.parse(bare).kind() === 'ipv6' ? 6 : 4 }];
  else {
    try {
      addresses = await resolver(bare);
    } catch {
      return { ok: false, problem: `${host} does not resolve` };
    }
  }
  if (addresses.length === 0) return { ok: false, problem: `${host} does not resolve` };
  const blocked = addresses.find((entry) => !allowed(entry.address));
  // The address a name resolves to is not said: it would map the portal's network to whoever types names.
  if (blocked)
    return {
      ok: false,
      problem: `${host} is not on the public internet${ipaddr.isValid(bare) ? '' : ' (it resolves to a private address)'}; set DELIVERY_ALLOW_PRIVATE_TARGETS=1 if a loopback or private target is intended`,
    };
  return { ok: true, ...addresses[0]! };
}

/** Null when `host` may be delivered to; otherwise why not (checked when a delivery is saved). */
export async function targetProblem(host: string, allowPrivate: PrivateTargets, resolver?: Resolver): Promise<string | null> {
  const pinned = await pinTarget(host, allowPrivate, resolver);
  return pinned.ok ? null : pinned.problem;
}

/** A `lookup` for net/tls that answers every name with the pinned address (undici's connect, ssh2's socket). */
export function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (typeof options === 'function') [options, callback] = [{}, options];
    if (options?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as unknown as LookupFunction;
}

/** Whether plain http (or a connection without TLS) may go to `host`: only where private targets are allowed. */
export function mayBePlain(host: string, allowPrivate: PrivateTargets): boolean {
  return allowPrivate === true || (allowPrivate === 'loopback' && isLoopbackHost(host));
}

export function webhookUrlProblem(url: string, allowPrivate: PrivateTargets): string | null {
  const parsed = new URL(url);
  if (parsed.username || parsed.password) return 'must not hold credentials (use the secret)';
  if (parsed.protocol !== 'https:' && !mayBePlain(parsed.hostname, allowPrivate))
    return 'must be an https URL (plain http only to a loopback or private target, with DELIVERY_ALLOW_PRIVATE_TARGETS=1)';
  return null;
}

/** A webhook URL as shown to anyone but its creator, in run history and in the audit trail: its path and query are a secret. */
export function maskedWebhookUrl(url: string): string {
  if (isSealed(url)) return `${sealedOrigin(url)}/… (sealed under another key)`;
  try {
    const parsed = new URL(url);
    return parsed.pathname === '/' && !parsed.search ? parsed.origin : `${parsed.origin}/…`;
  } catch {
    return '(webhook)';
  }
}
