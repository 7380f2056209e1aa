import 'server-only';
import { decode } from 'next-auth/jwt';
import { cache } from 'react';
import { cookies, headers } from 'next/headers';
import { forbidden, redirect } from 'next/navigation';
import { connection } from 'next/server';
import { AppError } from '../errors';
import { noteRequestUser } from '../log/request';
import { safeCallbackPath } from '../auth/callback';
import { authOptions, checkSessionToken } from '../auth/options';
import { mayAct, type PortalSession } from '../auth/principal';
import { isRole, type Capability } from '../vocabulary/roles';

/**
 * The signed-in person, or null. A session without a known role (e.g. signed out) counts as no session.
 * Read straight from the cookie and judged by the same rules as next-auth's jwt callback (revocation,
 * absolute end, the account now), without next-auth's re-encoding of the cookie on every read: the token's
 * expiry is pinned to the session's absolute end (options.ts), so a fresh copy would gain nothing, and its
 * encryption was a measurable part of every page (docs/adr/0002). Once per request (React's cache).
 */
export const getPortalSession = cache(async function getPortalSession(): Promise<PortalSession | null> {
  await connection(); // per request, never prerendered: sessions and licensed data are private
  const options = authOptions();
  const raw = sessionCookie((await cookies()).getAll(), options.cookies?.sessionToken?.name ?? 'portal.session');
  if (!raw) return null; // nobody signed in: no token to decrypt
  const decoded = await decode({ token: raw, secret: options.secret! }).catch(() => null); // expired, forged, other secret
  if (!decoded) return null;
  const token = await checkSessionToken(decoded);
  if (!isRole(token.role) || typeof token.email !== 'string' || typeof token.signedInAt !== 'number') return null;
  const name = typeof token.name === 'string' ? token.name : token.email;
  const expires = typeof token.exp === 'number' ? new Date(token.exp * 1000).toISOString() : new Date().toISOString();
  noteRequestUser({ role: token.role, email: token.email }); // the request's log line names the role
  return { user: { name, email: token.email, role: token.role }, expires };
});

/** The session cookie's value; next-auth splits a large one into name.0, name.1… (joined in order). */
function sessionCookie(all: { name: string; value: string }[], name: string): string | null {
  const whole = all.find((cookie) => cookie.name === name);
  if (whole) return whole.value;
  const chunks = all
    .map((cookie) => ({
      index: cookie.name.startsWith(`${name}.`) ? Number(cookie.name.slice(name.length + 1)) : NaN,
      value: cookie.value,
    }))
    .filter((chunk) => Number.isInteger(chunk.index))
    .sort((a, b) => a.index - b.index);
  return chunks.length ? chunks.map((chunk) => chunk.value).join('') : null;
}

/**
 * To /login, coming back to the address asked for: lib/http/request-policy.ts passes it (query included) in
 * x-portal-return, set on every page request whatever the client sent; `fallback` serves when it is missing.
 */
export async function redirectToLogin(fallback: string): Promise<never> {
  const back = safeCallbackPath((await headers()).get('x-portal-return') ?? fallback);
  redirect(back === '/' ? '/login' : `/login?callbackUrl=${encodeURIComponent(back)}`);
}

/** The signed-in person, as a principal of the one rule for who may act (lib/auth/principal.ts). */
const personOf = (session: PortalSession) => ({ kind: 'person' as const, email: session.user.email ?? '', role: session.user.role });

/** The session when its person may do this now (server actions: checked on every call), or null. */
export async function sessionMay(capability: Capability): Promise<PortalSession | null> {
  const session = await getPortalSession();
  return session && (await mayAct(personOf(session), capability)).ok ? session : null;
}

/** For pages: signed-out people go to /login (and come back here), the wrong role gets the 403 page. */
export async function requirePage(capability: Capability, returnTo: string): Promise<PortalSession> {
  const session = await getPortalSession();
  if (!session) return redirectToLogin(returnTo);
  if (!(await mayAct(personOf(session), capability)).ok) forbidden();
  return session;
}

/** For route handlers: the portal's JSON error, 401 signed out, 403 wrong role. */
export async function requireApi(capability: Capability): Promise<PortalSession> {
  const session = await getPortalSession();
  if (!session) throw new AppError({ code: 'UNAUTHENTICATED' });
  const verdict = await mayAct(personOf(session), capability);
  if (!verdict.ok) {
    if (verdict.refusal !== 'capability') throw new AppError({ code: 'UNAUTHENTICATED' });
    throw new AppError({ code: 'FORBIDDEN', message: `Your role (${session.user.role}) may not do this.` });
  }
  return session;
}
