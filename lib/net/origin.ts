import { isLoopbackHost } from './addresses';

/**
 * The origin rule for every request that can change state (any method but GET, HEAD and OPTIONS): a
 * browser must say it came from the portal itself. `Sec-Fetch-Site: cross-site` or `same-site` is refused
 * (a sibling subdomain is another site's code, and the session cookie is SameSite=Lax), and an `Origin`
 * equal to the portal's is required; tools that send none (curl, scripts) must send one too. A portal on
 * loopback accepts its loopback aliases (localhost, 127.0.0.1, [::1]) on the same scheme and port.
 */

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Null when the request may go on; otherwise why not, in words for the caller. */
export function originProblem(
  method: string | undefined,
  headers: Record<string, string | string[] | undefined>,
  portalOrigin: string,
): string | null {
  if (SAFE.has((method ?? 'GET').toUpperCase())) return null;
  const site = headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return 'This request came from another site. Open the portal and start it there.';
  const origin = typeof headers.origin === 'string' ? headers.origin : '';
  if (!origin) return `A request that changes something must carry an Origin header naming the portal (${portalOrigin}).`;
  if (!sameOrigin(origin, portalOrigin)) return `This request came from ${origin}, not from the portal (${portalOrigin}).`;
  return null;
}

function sameOrigin(origin: string, portal: string): boolean {
  if (origin === portal) return true;
  let a: URL;
  let b: URL;
  try {
    [a, b] = [new URL(origin), new URL(portal)];
  } catch {
    return false; // "null" and other opaque origins
  }
  if (a.origin === b.origin) return true;
  return a.protocol === b.protocol && a.port === b.port && isLoopbackHost(a.hostname) && isLoopbackHost(b.hostname);
}
