import 'server-only';
import { DEMO_USERS } from './demo-users';
import { storeGraceMs } from './revocation';
import { findUser, normaliseEmail, type StoredUser } from './users';

/**
 * Accounts as sessions see them: re-read from the store on session use, through a short cache, so that a
 * removed, disabled, reset or demoted account loses access within ACCOUNT_CACHE_MS on every instance. While
 * the store cannot be reached, the last answer this process had is used while it is younger than
 * SESSION_STORE_GRACE_SECONDS; after that there is no account (the session is refused: fail closed).
 */

export const ACCOUNT_CACHE_MS = 10_000;

const DEMO_EMAILS = new Set(DEMO_USERS.map((user) => user.email));
const cache = new Map<string, { user: StoredUser | undefined; until: number; readAt: number }>();

/** Demo accounts by their flag, or by their well-known address (stores filled before the flag). */
export function isDemoAccount(user: { email: string; demo?: boolean }): boolean {
  return user.demo === true || DEMO_EMAILS.has(normaliseEmail(user.email));
}

/** This instance reads the account afresh next time (it changed here; other instances within ACCOUNT_CACHE_MS). */
export function forgetAccount(email: string): void {
  cache.delete(normaliseEmail(email));
}

export async function currentAccount(email: string, now = Date.now(), graceMs = storeGraceMs()): Promise<StoredUser | undefined> {
  const key = normaliseEmail(email);
  const hit = cache.get(key);
  if (hit && hit.until > now) return hit.user;
  let user: StoredUser | undefined;
  try {
    user = await findUser(key);
  } catch {
    return hit && now - hit.readAt <= graceMs ? hit.user : undefined; // the store is away: a recent answer, or none
  }
  if (cache.size > 10_000) cache.clear(); // a cache, not a record: dropping it costs one read per session
  cache.set(key, { user, until: now + ACCOUNT_CACHE_MS, readAt: now });
  return user;
}
