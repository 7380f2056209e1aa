import { NextResponse, type NextRequest } from 'next/server';
import { getConfig } from './lib/config';
import { safeCallbackPath } from './lib/auth/callback';

/**
 * Runs before every page and route handler: a per-request CSP nonce, HSTS over https, and a redirect of
 * browsers without a session cookie to /login. It is a convenience, not the guard: every page and handler
 * decrypts and judges the session and checks the role itself (lib/auth/session.ts), so the proxy only looks
 * for the cookie (a second decryption here cost every page view) and passes the address to come back to in
 * RETURN_HEADER, which a page that finds the cookie worthless uses for its own redirect to /login.
 */

/** Set here on every page request, overwriting whatever a client sent (lib/auth/session.ts reads it). */
const RETURN_HEADER = 'x-portal-return';

export function proxy(request: NextRequest) {
  const config = getConfig();
  const { pathname, search } = request.nextUrl;
  const secure = (config.NEXTAUTH_URL ?? '').startsWith('https://');
  const isPage = !pathname.startsWith('/api/');
  // Next's router answers a malformed percent-escape in a dynamic segment with a 500; refuse it cleanly.
  if (!decodes(pathname)) {
    return new NextResponse('Bad request: the address has a malformed %-escape.', {
      status: 400,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'private, no-store' },
    });
  }

  // Only pages come back here after signing in; route handlers answer 401 themselves.
  const back = isPage ? safeCallbackPath(`${pathname}${search}`) : null;
  if (isPage && pathname !== '/login' && !hasSessionCookie(request, secure ? '__Host-portal.session' : 'portal.session')) {
    const login = new URL('/login', request.url);
    if (back && back !== '/') login.searchParams.set('callbackUrl', back);
    return NextResponse.redirect(login);
  }

  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
  const upstream = new URL(config.PICKS_API_BASE_URL).origin;
  const dev = process.env.NODE_ENV !== 'production';
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    `style-src 'self' 'unsafe-inline'`,
    // Logos: only the upstream's own origin and PORTAL_IMAGE_ORIGINS (lib/pick-view.ts vets URLs by the same list).
    `img-src 'self' data: ${[upstream, ...config.PORTAL_IMAGE_ORIGINS].join(' ')}`,
    "font-src 'self'",
    `connect-src 'self'${dev ? ' ws:' : ''}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('x-nonce', nonce);
  requestHeaders.set('content-security-policy', csp);
  if (back) requestHeaders.set(RETURN_HEADER, back);
  else requestHeaders.delete(RETURN_HEADER);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set('Content-Security-Policy', csp);
  if (secure) response.headers.set('Strict-Transport-Security', 'max-age=63072000; includeSubDomains');
  return response;
}

/** The session cookie, whole or split by next-auth into name.0, name.1… */
function hasSessionCookie(request: NextRequest, name: string): boolean {
  return request.cookies.getAll().some((cookie) => cookie.name === name || cookie.name.startsWith(`${name}.`));
}

function decodes(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

export const config = {
  matcher: [{ source: '/((?!_next/static|_next/image|favicon.ico|icon.svg).*)' }],
};
