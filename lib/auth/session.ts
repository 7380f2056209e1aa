import 'server-only';
import { getServerSession, type Session } from 'next-auth';
import { forbidden, redirect } from 'next/navigation';
import { connection } from 'next/server';
import { AppError } from '../errors';
import { authOptions } from './options';
import { can, isRole, type Capability } from './roles';

/** The signed-in person, or null. A session without a known role counts as no session. */
export async function getPortalSession(): Promise<Session | null> {
  await connection(); // per request, never prerendered: sessions and licensed data are private
  const session = await getServerSession(authOptions());
  return session?.user && isRole(session.user.role) ? session : null;
}

/** For pages: signed-out people go to /login (and come back here), the wrong role gets the 403 page. */
export async function requirePage(capability: Capability, returnTo: string): Promise<Session> {
  const session = await getPortalSession();
  if (!session) redirect(`/login?callbackUrl=${encodeURIComponent(returnTo)}`);
  if (!can(session.user.role, capability)) forbidden();
  return session;
}

/** For route handlers: the portal's JSON error, 401 signed out, 403 wrong role. */
export async function requireApi(capability: Capability): Promise<Session> {
  const session = await getPortalSession();
  if (!session) throw new AppError({ status: 401, code: 'UNAUTHENTICATED', message: 'Sign in to use the portal.' });
  if (!can(session.user.role, capability)) {
    throw new AppError({ status: 403, code: 'FORBIDDEN', message: `Your role (${session.user.role}) may not do this.` });
  }
  return session;
}
