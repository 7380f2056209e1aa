import type { Kysely } from 'kysely';
import type { Preferences } from '../vocabulary/preferences';
import { readPreferences } from '../vocabulary/preferences-schema';
import type { Database } from './schema';

type Db = Kysely<Database>;

/** A person's preferences ({} when none is chosen, or for no such person). */
export async function getPreferences(db: Db, email: string): Promise<Preferences> {
  const row = await db.selectFrom('users').select('preferences').where('email', '=', email).executeTakeFirst();
  return readPreferences(row?.preferences ?? null);
}

/** Merges a change into a person's preferences and returns them all; null when there is no such person. */
export async function changePreferences(db: Db, email: string, change: Preferences): Promise<Preferences | null> {
  return db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('users').select('preferences').where('email', '=', email).executeTakeFirst();
    if (!row) return null;
    const next = { ...readPreferences(row.preferences), ...change };
    await tx
      .updateTable('users')
      .set({ preferences: JSON.stringify(next) })
      .where('email', '=', email)
      .execute();
    return next;
  });
}
