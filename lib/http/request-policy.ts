import 'server-only';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseCookies } from 'cookie';
import { safeCallbackPath } from '../auth/callback';
import { sessionCookieName } from '../auth/session-cookie';
import { portalOrigin, type PortalConfig } from '../config';
import { limitBody } from '../net/body-limit';
import { originProblem } from '../net/origin';
import { server } from '../process-state';

/**
 * What every request meets before Next sees it: a body over PORTAL_MAX_BODY_KB refused with 413 unread
 * (lib/net/body-limit.ts), a state-changing request from anywhere but the portal's own origin refused
 * (lib/net/origin.ts), a malformed %-escape refused (Next's router answers one in a dynamic segment with a
 * 500), a per-request CSP nonce (Next reads it from the request's CSP header and puts it on its scripts),
 * HSTS over https, and browsers without a session cookie sent to /login.
 * scripts/portal-server.mjs applies it (npm start and npm run dev); instrumentation installs it, so it is
 * built from the validated configuration. It replaces Next's proxy.ts, whose adapter cost every page view
 * far more than this work.
 * It is a convenience, not the guard: every page and handler decrypts and judges the session and checks the
 * role itself (lib/http/session.ts). Here only the cookie's presence counts, and the address to come back to
 * is passed in RETURN_HEADER (always overwritten) for a page that finds the cookie worthless.
 */

export const RETURN_HEADER = 'x-portal-return';

export interface RequestPolicyOptions {
  upstreamOrigin: string;
  /** Logo hosts besides the upstream (PORTAL_IMAGE_ORIGINS). */
  imageOrigins: string[];
  /** The portal is served over https (NEXTAUTH_URL): HSTS, and the __Host- cookie name. */
  secure: boolean;
  dev: boolean;
  /** The portal's public origin (NEXTAUTH_URL): state-changing requests must come from it. */
  origin: string;
  /** The largest request body read, in bytes. */
  maxBodyBytes: number;
  /** The largest file an admin may upload to "check a file" (POST /api/proof/check), in bytes. */
  maxCheckBytes: number;
}

/** The one route that takes a whole file: its own limit (PROOF_CHECK_MAX_MB), every other route PORTAL_MAX_BODY_KB. */
export const CHECK_PATH = '/api/proof/check';

/** true: the request was answered here; false: it is ready for Next. */
export type RequestPolicy = (req: IncomingMessage, res: ServerResponse) => boolean;

// Hashed assets, the image optimiser, the icons and the offline verifier recipients download: no page, no nonce, no sign-in
// needed. Judged on the path as it will be routed, and only when that is the path as sent (no dot segments, %2e%2e included).
const ASSETS =
  /^\/(?:_next\/static\/[^/][^?#]*|_next\/image|favicon\.ico|icon\.svg|verify-picks-(?:file|events)\.mjs|picks-file-readers\.mjs)$/;
// next dev's own endpoints (hot reload, error overlay).
const DEV_ASSETS = /^\/(?:_next\/|__nextjs)/;
const ORIGIN = 'http://portal.invalid';
/** API v1 and the MCP server: a bearer token only, never a cookie (lib/tokens/access.ts). */
const BEARER_ONLY = /^\/api\/(?:v1|mcp)(?:\/|$)/;

export function requestPolicyOptions(config: PortalConfig): RequestPolicyOptions {
  return {
    upstreamOrigin: new URL(config.PICKS_API_BASE_URL).origin,
    imageOrigins: config.PORTAL_IMAGE_ORIGINS,
    secure: (config.NEXTAUTH_URL ?? '').startsWith('https://'),
    dev: config.NODE_ENV !== 'production',
    origin: portalOrigin(config),
    maxBodyBytes: config.PORTAL_MAX_BODY_KB * 1024,
    maxCheckBytes: config.PROOF_CHECK_MAX_MB * 1024 * 1024,
  };
}

export function createRequestPolicy(options: RequestPolicyOptions): RequestPolicy {
  const { dev, secure } = options;
  const cookieName = sessionCookieName(secure);
  const NONCE = '{nonce}';
  const policy = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${NONCE}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    `style-src 'self' 'unsafe-inline'`,
    // Logos: only the upstream's own origin and PORTAL_IMAGE_ORIGINS (lib/picks-api/pick-view.ts vets URLs by the same list).
    `img-src 'self' data: ${[options.upstreamOrigin, ...options.imageOrigins].join(' ')}`,
    "font-src 'self'",
    `connect-src 'self'${dev ? ' ws:' : ''}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  // Built once: each request only puts its nonce between the two halves (script-src comes first).
  const at = policy.indexOf(NONCE);
  const [policyHead, policyTail] = [policy.slice(0, at), policy.slice(at + NONCE.length)];

  return (req, res) => {
    const headers = req.headers;
    const raw = req.url ?? '/';
    const url = parsePath(raw);
    // The portal's API v1 and its MCP server take a bearer token and never a cookie, and only read: no request there
    // is made in a signed-in person's name, so no origin is asked for (a POST to API v1 gets the spec's 405 from the
    // route; the MCP server takes JSON-RPC by POST). Judged on the path as Next will route it (dot segments
    // resolved), never on the raw one.
    const refused = url && BEARER_ONLY.test(url.pathname) ? null : originProblem(req.method, headers, options.origin);
    if (refused) {
      const portalRequestId = res.getHeader('x-request-id') ?? null;
      const body = JSON.stringify({ error: { status: 403, code: 'FORBIDDEN', message: refused, requestId: null, portalRequestId } });
      res.writeHead(403, {
        'Content-Type': 'application/json; charset=utf-8',
        'Cache-Control': 'private, no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(body);
      return true;
    }
    const query = raw.indexOf('?');
    const rawPath = query < 0 ? raw : raw.slice(0, query);
    if (limitBody(req, res, rawPath === CHECK_PATH ? options.maxCheckBytes : options.maxBodyBytes)) return true;
    delete headers['content-security-policy']; // only ours names the nonce Next puts on its scripts
    const routed = url?.pathname === rawPath ? rawPath : null;
    if (routed !== null && (ASSETS.test(routed) || (dev && DEV_ASSETS.test(routed)))) return false;

    if (!url) {
      res.writeHead(400, {
        'Content-Type': 'text/plain; charset=utf-8',
        'Cache-Control': 'private, no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end('Bad request: the address has a malformed %-escape.');
      return true;
    }

    // Only pages come back here after signing in; route handlers answer 401 themselves.
    const isPage = !url.pathname.startsWith('/api/');
    if (isPage) {
      if (url.searchParams.has('_rsc')) url.searchParams.delete('_rsc'); // the router's cache key, not part of the address
      const back = safeCallbackPath(`${url.pathname}${url.search}`);
      if (url.pathname !== '/login' && !hasCookie(headers.cookie, cookieName)) {
        const login = back === '/' ? '/login' : `/login?${new URLSearchParams({ callbackUrl: back })}`;
        res.writeHead(307, { Location: login, 'Cache-Control': 'private, no-store' });
        res.end();
        return true;
      }
      headers[RETURN_HEADER] = back;
    } else {
      delete headers[RETURN_HEADER];
    }

    const csp = `${policyHead}${randomBytes(16).toString('base64')}${policyTail}`;
    headers['content-security-policy'] = csp;
    res.setHeader('Content-Security-Policy', csp);
    if (secure) res.setHeader('Strict-Transport-Security', 'max-age=63072000; includeSubDomains');
    return false;
  };
}

/** The request's path and query, dot segments resolved; null when a %-escape in the path is malformed. */
function parsePath(raw: string): URL | null {
  if (!raw.startsWith('/')) return null;
  try {
    const url = new URL(`${ORIGIN}${raw}`);
    decodeURIComponent(url.pathname);
    return url.origin === ORIGIN ? url : null;
  } catch {
    return null;
  }
}

/** The session cookie, whole or split by next-auth into name.0, name.1… */
function hasCookie(header: string | undefined, name: string): boolean {
  if (!header) return false;
  return Object.keys(parseCookies(header)).some((cookie) => cookie === name || cookie.startsWith(`${name}.`));
}

/** Called once at server start (instrumentation): scripts/portal-server.mjs waits for it before it listens. */
export function installRequestPolicy(config: PortalConfig): void {
  server.policyInstalled?.(createRequestPolicy(requestPolicyOptions(config)));
}
