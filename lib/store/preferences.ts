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

/**
 * Merges a change into a person's preferences and returns them all; null when there is no such person. Written
 * only over what was read (compare and set), read again when another instance or tab changed them in between: a
 * transaction would lose one of two changes on PostgreSQL (read committed) and be refused on SQLite (a read
 * snapshot another connection wrote past cannot become a write).
 */
export async function changePreferences(db: Db, email: string, change: Preferences): Promise<Preferences | null> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const row = await db.selectFrom('users').select('preferences').where('email', '=', email).executeTakeFirst();
    if (!row) return null;
    const next = { ...readPreferences(row.preferences), ...change };
    const written = await db
      .updateTable('users')
      .set({ preferences: JSON.stringify(next) })
      .where('email', '=', email)
      .where('preferences', row.preferences === null ? 'is' : '=', row.preferences)
      .executeTakeFirst();
    if (Number(written.numUpdatedRows) > 0) return next;
  }
  throw new Error('preferences kept changing while this change was being saved');
}
