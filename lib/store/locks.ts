import type { Kysely } from 'kysely';
import type { Database } from './schema';

/**
 * Serialises a transaction across processes and instances: updating a row of `locks` first takes a row lock
 * in PostgreSQL and the write lock in SQLite, so whoever comes next waits until this transaction ends.
 */
export async function takeLock(
  trx: Kysely<Database>,
  name: 'walks' | 'audit' | 'users' | 'watchdog' | 'signing-keys' | 'checkpoints' | 'history',
): Promise<void> {
  await trx
    .updateTable('locks')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('name', '=', name)
    .execute();
}
