import { randomUUID } from 'node:crypto';
import type { JWT } from 'next-auth/jwt';
import { standing } from './principal';
import { isRole, type Role } from '../vocabulary/roles';
import type { StoredUser } from './users';

/**
 * The session token's life, independent of next-auth's re-encoding: an identity (`sid`), a sign-in time
 * and the account's session epoch set once, an absolute lifetime counted from sign-in and never extended
 * by use, and the account re-read on use (password and single sign-on accounts alike): a session signed in
 * under another epoch than the account's now (password reset, disable, enable, role change, removal and
 * re-adding each set a new one) is over for good. Pure apart from the lookups it is given.
 */

export interface SessionPolicy {
  maxAgeSeconds: number;
  isRevoked: (sid: string) => Promise<boolean>;
  /** The account as the store has it now (a short cache is fine), or undefined when it is gone. */
  findAccount: (email: string) => Promise<StoredUser | undefined>;
  /** Whether demo accounts are refused (off the sandbox). */
  demoRefused: boolean;
  now?: () => number;
}

/** A token no page or handler accepts: it carries no identity and no role. */
export const ENDED: JWT = { revoked: true };

export function startSession(
  token: JWT,
  user: { email?: string | null; role: Role; sessionEpoch?: number },
  provider: string,
  now = Date.now(),
): JWT {
  return {
    ...token,
    sid: randomUUID(),
    signedInAt: Math.floor(now / 1000),
    provider,
    role: user.role,
    email: user.email ?? token.email,
    epoch: user.sessionEpoch ?? 0,
  };
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
  const account = typeof token.email === 'string' ? await policy.findAccount(token.email) : undefined;
  // The account itself is judged by the one rule for who may act (lib/auth/principal.ts).
  const person = { kind: 'person' as const, email: String(token.email), role: isRole(token.role) ? token.role : 'viewer' };
  if (!account || !standing(account, person, null, policy.demoRefused).ok) return ENDED;
  if (account.sessionEpoch !== (typeof token.epoch === 'number' ? token.epoch : 0)) return ENDED;
  if (account.provider !== (token.provider === 'credentials' ? 'credentials' : 'oidc')) return ENDED;
  // A single sign-on role comes from the identity provider at sign-in; a password account's from the store.
  if (account.provider === 'oidc') return isRole(token.role) ? token : ENDED;
  return account.role === token.role ? token : { ...token, role: account.role };
}
