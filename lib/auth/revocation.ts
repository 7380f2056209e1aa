import 'server-only';
import { getConfig } from '../config';
import { getStore } from '../store';
import * as sessions from '../store/sessions';
import { processSlot } from '../process-state';

/**
 * Sessions are JWTs, so deleting the cookie at sign-out would leave a copied token valid. Each session
 * carries an identity (`sid`); signed-out identities are kept in the store until the session could have
 * expired anyway, and refused on every session read by every instance.
 * While the store cannot be reached, this process refuses the sessions it saw end itself, honours a
 * session the store confirmed within SESSION_STORE_GRACE_SECONDS, and refuses every other one (fails
 * closed): a sign-out on another instance cannot be confirmed, so after the bound nothing is taken on trust.
 */

const here = processSlot<Map<string, number>>('revokedHere').once(() => new Map());
/** When the store last said each identity was not revoked (ms). */
const confirmed = processSlot<Map<string, number>>('confirmedSessions').once(() => new Map());

export const storeGraceMs = () => getConfig().SESSION_STORE_GRACE_SECONDS * 1000;

export async function revokeSession(sid: unknown, untilMs: number): Promise<void> {
  if (typeof sid !== 'string' || sid === '') return;
  const now = Date.now();
  for (const [id, until] of here) if (until <= now) here.delete(id);
  here.set(sid, untilMs);
  confirmed.delete(sid);
  try {
    await sessions.revokeSession((await getStore()).db, sid, untilMs);
  } catch (error) {
    console.error(`[store] a sign-out was kept on this instance only: the store could not be reached (${(error as Error).message})`);
  }
}

export async function isSessionRevoked(sid: string, now = Date.now(), graceMs = storeGraceMs()): Promise<boolean> {
  if ((here.get(sid) ?? 0) > now) return true;
  try {
    const revoked = await sessions.isSessionRevoked((await getStore()).db, sid);
    if (!revoked) {
      if (confirmed.size > 50_000) confirmed.clear(); // a cache of confirmations, not a record
      confirmed.set(sid, now);
    }
    return revoked;
  } catch {
    return now - (confirmed.get(sid) ?? -Infinity) > graceMs; // the store is away: fail closed past the bound
  }
}
