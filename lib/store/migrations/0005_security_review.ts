import { sql, type Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    // Sessions signed in under another epoch are over: password reset, disable, role change and removal each set a new one.
    await db.schema
      .alterTable('users')
      .addColumn('session_epoch', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    // 'credentials' (a password) or 'oidc' (created at single sign-on, no password; an admin can still disable it).
    await db.schema
      .alterTable('users')
      .addColumn('provider', 'text', (c) => c.notNull().defaultTo('credentials'))
      .execute();
    // One run in flight per delivery: older versions could start many at once; all but one of those are closed first.
    await db
      .updateTable('delivery_runs')
      .set({ outcome: 'failed', error: 'closed when one run per delivery became the rule', finished_at: new Date().toISOString() })
      .where('outcome', '=', 'running')
      .where(sql<boolean>`id not in (select max(id) from delivery_runs where outcome = 'running' group by delivery_id)`)
      .execute();
    await db.schema
      .createIndex('delivery_runs_one_running')
      .on('delivery_runs')
      .column('delivery_id')
      .unique()
      .where(sql.ref('outcome'), '=', sql.lit('running'))
      .execute();
  },
};
