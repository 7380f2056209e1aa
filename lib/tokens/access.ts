import 'server-only';
import { createHash, randomBytes } from 'node:crypto';
import { mayAct } from '../auth/principal';
import { getStore } from '../store';
import { getToken, tokenByHash, type ApiToken, type PresentedToken } from '../store/tokens';
import { processSlot } from '../process-state';
import { V1Error } from './refusal';

/**
 * API tokens: `pvt_` and 43 base64url characters (256 random bits). Only their sha256 is stored: they are
 * high-entropy, so a fast hash is right (no password hashing). Each instance remembers what a token is for
 * CACHE_MS, so a revocation or a change of scope made on any instance takes effect everywhere within that
 * time (the instance that made it forgets at once). Its owner is judged on every request by the one rule
 * for who may act, through the accounts' own short cache.
 */

const FORMAT = /^pvt_[A-Za-z0-9_-]{43}$/;
const CACHE_MS = 5_000;
const CACHE_MAX = 2_000;

export function newToken(): { token: string; hash: string; prefix: string } {
  const token = `pvt_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashToken(token), prefix: token.slice(0, 10) };
}

export const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

const cache = () => processSlot<Map<string, { at: number; token: PresentedToken | null }>>('tokenCache').once(() => new Map());

/** This instance forgets a token it changed or revoked (the others within CACHE_MS). */
export function forgetTokens(): void {
  cache().clear();
}

/** The first characters of the secret a request came with: the token's, or the one it was rolled from. */
export const presentedPrefix = (token: ApiToken): string =>
  (token as Partial<PresentedToken>).presented === 'previous' && token.previous ? token.previous.prefix : token.prefix;

export const tokenPrincipal = (token: ApiToken) =>
  ({ kind: 'token', id: token.id, owner: token.owner, ownerSinceMs: token.ownerSinceMs }) as const;

const unauthorized = (message: string) => new V1Error(401, 'UNAUTHORIZED', message);

/**
 * The token a request carries in `Authorization: Bearer`, live and unexpired; 401 otherwise. A session
 * cookie is never accepted here: these routes are for the partner's systems, not browsers.
 */
export async function authenticate(authorization: string | null, hasCookie: boolean, now = Date.now()): Promise<PresentedToken> {
  const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  if (!match) {
    throw unauthorized(
      hasCookie
        ? 'Send an API token in the Authorization header (Bearer). A signed-in session is not accepted here.'
        : 'Missing or invalid credentials.',
    );
  }
  const presented = match[1]!;
  if (!FORMAT.test(presented)) throw unauthorized('Missing or invalid credentials.');
  const hash = hashToken(presented);
  const known = cache();
  let entry = known.get(hash);
  if (!entry || now - entry.at > CACHE_MS) {
    const { db } = await getStore();
    entry = { at: now, token: await tokenByHash(db, hash) };
    if (known.size >= CACHE_MAX) known.clear();
    known.set(hash, entry);
  }
  return stillLive(entry.token, now);
}

/** The token, when it may act now: not revoked, not expired, and its owner may hold tokens; 401 otherwise. */
async function stillLive<T extends ApiToken>(token: T | null, now: number): Promise<T> {
  if (!token || token.revokedMs !== null) throw unauthorized('Missing or invalid credentials.');
  // The secret it was rolled from works only until the overlap its owner chose ends (exactly, even from the cache).
  if ((token as Partial<PresentedToken>).presented === 'previous' && !(token.previous && token.previous.untilMs > now))
    throw unauthorized('This secret was replaced when the token was rolled, and its overlap is over: use the new secret.');
  if (token.expiresMs <= now) throw unauthorized('This token has expired.');
  // A token acts for its owner: a removed, disabled or demoted owner stops it (lib/auth/principal.ts).
  const owner = await mayAct(tokenPrincipal(token), 'tokens', now);
  if (!owner.ok) throw unauthorized(`This token is suspended: ${owner.reason}. An admin can give it to another owner.`);
  return token;
}

/**
 * The token a signed-in owner tries on /developers (lib/http/try-v1.ts checked the session and that the token is
 * theirs): read afresh from the store, and held to the same rule as a token presented in Authorization.
 */
export async function triedToken(id: string, now = Date.now()): Promise<ApiToken> {
  const { db } = await getStore();
  return stillLive((await getToken(db, id)) ?? null, now);
}
