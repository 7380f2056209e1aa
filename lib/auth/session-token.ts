import { randomUUID } from 'node:crypto';
import type { JWT } from 'next-auth/jwt';
import { isRole, type Role } from './roles';
import type { StoredUser } from './users';

/**
 * The session token's life, independent of next-auth's re-encoding: an identity (`sid`) and a sign-in
 * time set once, an absolute lifetime counted from sign-in and never extended by use, and, for
 * accounts of the users store, the account re-read on use so that removal, disabling and demotion
 * take effect on open sessions. Pure apart from the lookups it is given.
 */

export interface SessionPolicy {
  maxAgeSeconds: number;
  isRevoked: (sid: string) => Promise<boolean>;
  /** The account as the store has it now (a short cache is fine), or undefined when it is gone. */
  findAccount: (email: string) => Promise<StoredUser | undefined>;
  /** Whether this account may hold a session at all (e.g. demo accounts off the sandbox). */
  accountAllowed: (user: StoredUser) => boolean;
  now?: () => number;
}

/** A token no page or handler accepts: it carries no identity and no role. */
export const ENDED: JWT = { revoked: true };

export function startSession(token: JWT, user: { email?: string | null; role: Role }, provider: string, now = Date.now()): JWT {
  return { ...token, sid: randomUUID(), signedInAt: Math.floor(now / 1000), provider, role: user.role, email: user.email ?? token.email };
}

/** When the session ends for good, in milliseconds since the epoch (0 for a token without a sign-in time). */
export function sessionEndsAt(token: JWT, maxAgeSeconds: number): number {
  return typeof token.signedInAt === 'number' ? (token.signedInAt + maxAgeSeconds) * 1000 : 0;
}

export async function continueSession(token: JWT, policy: SessionPolicy): Promise<JWT> {
  const now = policy.now?.() ?? Date.now();
  if (typeof token.sid !== 'string' || typeof token.signedInAt !== 'number') return ENDED;
  if (sessionEndsAt(token, policy.maxAgeSeconds) <= now || token.signedInAt * 1000 > now + 60_000) return ENDED;
  if (await policy.isRevoked(token.sid)) return ENDED;
  if (token.provider !== 'credentials') return isRole(token.role) ? token : ENDED;
  const account = typeof token.email === 'string' ? await policy.findAccount(token.email) : undefined;
  if (!account || account.disabled || !policy.accountAllowed(account)) return ENDED;
  return account.role === token.role ? token : { ...token, role: account.role };
}
