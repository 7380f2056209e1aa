import 'server-only';
import { DEMO_USERS } from './demo-users';
import { findUser, normaliseEmail, type StoredUser } from './users';

/**
 * Accounts as sessions see them: re-read from the store on session use, through a short cache, so that a
 * removed, disabled or demoted account loses access within ACCOUNT_CACHE_MS on every instance. While the
 * store cannot be reached, the last answer this process had is used (and none at all means no session).
 */

export const ACCOUNT_CACHE_MS = 10_000;

const DEMO_EMAILS = new Set(DEMO_USERS.map((user) => user.email));
const cache = new Map<string, { user: StoredUser | undefined; until: number }>();

/** Demo accounts by their flag, or by their well-known address (stores filled before the flag). */
export function isDemoAccount(user: { email: string; demo?: boolean }): boolean {
  return user.demo === true || DEMO_EMAILS.has(normaliseEmail(user.email));
}

export async function currentAccount(email: string): Promise<StoredUser | undefined> {
  const key = normaliseEmail(email);
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.until > now) return hit.user;
  let user: StoredUser | undefined;
  try {
    user = await findUser(key);
  } catch {
    return hit?.user; // the store is away: the last known state of this account, if any
  }
  if (cache.size > 10_000) cache.clear(); // a cache, not a record: dropping it costs one read per session
  cache.set(key, { user, until: now + ACCOUNT_CACHE_MS });
  return user;
}
