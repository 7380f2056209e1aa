import 'server-only';
import type { Kysely } from 'kysely';
import { mayActIn } from '../auth/principal';
import type { Database } from '../store/schema';
import type { ApiToken } from '../store/tokens';
import type { TokenWebhook } from '../store/token-webhooks';

/**
 * Where a token's events go is its owner's decision. A webhook sends while the token's owner confirmed it (made it,
 * or confirmed it since), or while whoever made or last confirmed it may still act and the token has not changed
 * hands since then. Otherwise it waits, sending nothing, until the owner confirms it seeing its whole URL
 * (POST …/webhooks/<wid>/confirm): a leaver's receiver stops when their token is given to someone else, and when
 * the leaver is disabled or removed.
 */

/** Why this webhook waits for its token's owner (null: it may send). */
export async function awaitingOwner(db: Kysely<Database>, hook: TokenWebhook, token: ApiToken): Promise<string | null> {
  if (hook.confirmedBy === token.owner) return null;
  if (hook.confirmedMs < token.ownerSinceMs)
    return `its token was given to ${token.owner} after ${hook.confirmedBy} set it up: it sends nothing until ${token.owner} confirms it`;
  const maker = await mayActIn(db, { kind: 'recipient', email: hook.confirmedBy }, 'tokens');
  if (!maker.ok)
    return `${hook.confirmedBy}, who set it up, may no longer act (${maker.reason.replace(/^account /, '')}): it sends nothing until ${token.owner} confirms it`;
  return null;
}
