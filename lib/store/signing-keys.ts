import type { Kysely } from 'kysely';
import { takeLock } from './locks';
import type { Database } from './schema';

/**
 * The public keys the portal signs with. An instance registers its key when it starts: a key not seen before
 * is added and retires the others (a new key signs from then on); a retired key is refused, never reused.
 * Retired keys stay, with the time they were retired, so that proofs they made still verify.
 */

type Db = Kysely<Database>;

export interface StoredKey {
  kid: string;
  jwk: Record<string, unknown>;
  createdAt: string;
  retiredAt: string | null;
  compromisedAt: string | null;
}

export class RetiredKeyError extends Error {}

export async function registerSigningKey(db: Db, kid: string, jwk: Record<string, unknown>, now = new Date()): Promise<'added' | 'known'> {
  return db.transaction().execute(async (trx) => {
    await takeLock(trx, 'signing-keys');
    const row = await trx.selectFrom('signing_keys').select(['retired_at', 'compromised_at']).where('kid', '=', kid).executeTakeFirst();
    if (row?.compromised_at)
      throw new RetiredKeyError(
        `The signing key ${kid} was marked compromised at ${row.compromised_at}; nothing it signs is trusted. Give this instance a new key (npm run proof -- new-key).`,
      );
    if (row?.retired_at)
      throw new RetiredKeyError(
        `The signing key ${kid} was retired at ${row.retired_at}, when a newer key took over; a key is never reused. Give this instance the current key (npm run proof -- keys lists them).`,
      );
    if (row) return 'known';
    const at = now.toISOString();
    await trx.updateTable('signing_keys').set({ retired_at: at }).where('retired_at', 'is', null).execute();
    await trx
      .insertInto('signing_keys')
      .values({ kid, jwk: JSON.stringify(jwk), created_at: at, retired_at: null })
      .execute();
    return 'added';
  });
}

/** Every key, oldest first. */
export async function listSigningKeys(db: Db): Promise<StoredKey[]> {
  const rows = await db.selectFrom('signing_keys').selectAll().orderBy('created_at').orderBy('kid').execute();
  return rows.map((row) => ({
    kid: row.kid,
    jwk: JSON.parse(row.jwk) as Record<string, unknown>,
    createdAt: row.created_at,
    retiredAt: row.retired_at,
    compromisedAt: row.compromised_at ?? null,
  }));
}

/** Marks a key compromised (and retired, if it was not): every signature by it fails from now on. False: no such key. */
export async function markKeyCompromised(db: Db, kid: string, now = new Date()): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await takeLock(trx, 'signing-keys');
    const row = await trx.selectFrom('signing_keys').select(['retired_at', 'compromised_at']).where('kid', '=', kid).executeTakeFirst();
    if (!row) return false;
    const at = now.toISOString();
    await trx
      .updateTable('signing_keys')
      .set({ compromised_at: row.compromised_at ?? at, retired_at: row.retired_at ?? at })
      .where('kid', '=', kid)
      .execute();
    return true;
  });
}
