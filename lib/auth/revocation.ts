import 'server-only';
import { getStore } from '../store';
import * as sessions from '../store/sessions';

/**
 * Sessions are JWTs, so deleting the cookie at sign-out would leave a copied token valid. Each session
 * carries an identity (`sid`); signed-out identities are kept in the store until the session could have
 * expired anyway, and refused on every session read by every instance. While the store cannot be reached,
 * this process still refuses the sessions it saw end itself (kept in memory as well).
 */

const holder = globalThis as typeof globalThis & { __portalRevokedHere?: Map<string, number> };
const here = (holder.__portalRevokedHere ??= new Map());

export async function revokeSession(sid: unknown, untilMs: number): Promise<void> {
  if (typeof sid !== 'string' || sid === '') return;
  const now = Date.now();
  for (const [id, until] of here) if (until <= now) here.delete(id);
  here.set(sid, untilMs);
  try {
    await sessions.revokeSession((await getStore()).db, sid, untilMs);
  } catch (error) {
    console.error(`[store] a sign-out was kept on this instance only: the store could not be reached (${(error as Error).message})`);
  }
}

export async function isSessionRevoked(sid: string): Promise<boolean> {
  if ((here.get(sid) ?? 0) > Date.now()) return true;
  try {
    return await sessions.isSessionRevoked((await getStore()).db, sid);
  } catch {
    return false; // the store is away: sessions this instance saw end are still refused above
  }
}
