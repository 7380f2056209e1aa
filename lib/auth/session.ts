import 'server-only';
import { getServerSession, type Session } from 'next-auth';
import { cache } from 'react';
import { cookies } from 'next/headers';
import { forbidden, redirect } from 'next/navigation';
import { connection } from 'next/server';
import { AppError } from '../errors';
import { authOptions } from './options';
import { can, isRole, type Capability, type Role } from './roles';

/** A session with a known role: what every page and handler works with. */
export type PortalSession = Session & { user: Session['user'] & { role: Role } };

/**
 * The signed-in person, or null. A session without a known role (e.g. signed out) counts as no session.
 * Once per request (React's cache): the layout and the page both ask, and each ask decrypts and re-encrypts the cookie.
 */
export const getPortalSession = cache(async function getPortalSession(): Promise<PortalSession | null> {
  await connection(); // per request, never prerendered: sessions and licensed data are private
  const options = authOptions();
  // No session cookie (next-auth may split one into .0, .1…): nobody is signed in, and next-auth's whole
  // session handling can be skipped (it is most of what /login costs a signed-out visitor).
  const name = options.cookies?.sessionToken?.name ?? 'portal.session';
  if (!(await cookies()).getAll().some((cookie) => cookie.name === name || cookie.name.startsWith(`${name}.`))) return null;
  const session = await getServerSession(options);
  const role = session?.user?.role;
  return session && isRole(role) ? { ...session, user: { ...session.user, role } } : null;
});

/** For pages: signed-out people go to /login (and come back here), the wrong role gets the 403 page. */
export async function requirePage(capability: Capability, returnTo: string): Promise<PortalSession> {
  const session = await getPortalSession();
  if (!session) redirect(`/login?callbackUrl=${encodeURIComponent(returnTo)}`);
  if (!can(session.user.role, capability)) forbidden();
  return session;
}

/** For route handlers: the portal's JSON error, 401 signed out, 403 wrong role. */
export async function requireApi(capability: Capability): Promise<PortalSession> {
  const session = await getPortalSession();
  if (!session) throw new AppError({ code: 'UNAUTHENTICATED' });
  if (!can(session.user.role, capability)) {
    throw new AppError({ code: 'FORBIDDEN', message: `Your role (${session.user.role}) may not do this.` });
  }
  return session;
}
