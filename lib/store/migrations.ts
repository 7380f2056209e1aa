import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { EVERYDAY_AND_HEALTH } from './migrations-health';
import { HISTORY } from './migrations-history';
import { PROOF } from './migrations-proof';
import { TOKENS } from './migrations-tokens';

/**
 * Versioned migrations, applied in name order at start by Kysely's Migrator on either engine. A
 * migration, once released, is never edited: changes come as a new entry. Only the schema builder is
 * used, so one migration serves SQLite and PostgreSQL.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see the schema as it was then, not today's types
export type AnyDb = Kysely<any>;

const MIGRATIONS: Record<string, Migration> = {
  '0001_state': {
    async up(db: AnyDb) {
      await db.schema
        .createTable('users')
        .addColumn('email', 'text', (c) => c.primaryKey())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('demo', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_sign_in_at', 'text')
        .execute();
      await db.schema
        .createTable('revoked_sessions')
        .addColumn('sid', 'text', (c) => c.primaryKey())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('walk_slots')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('instance', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('walk_slots_owner').on('walk_slots').column('owner').execute();
      await db.schema
        .createTable('locks')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.insertInto('locks').values({ name: 'walks', version: 0 }).execute();
      await db.schema
        .createTable('upstream_pause')
        .addColumn('scope', 'text', (c) => c.primaryKey())
        .addColumn('resume_at', 'bigint', (c) => c.notNull())
        .execute();
      // rate-limiter-flexible's table, made here (its own creation races between instances starting together).
      await db.schema
        .createTable('rate_limits')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('expire', 'bigint')
        .execute();
      await db.schema
        .createTable('meta')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0002_audit': {
    async up(db: AnyDb) {
      await db.schema
        .createTable('audit_log')
        .addColumn('seq', 'bigint', (c) => c.primaryKey())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('role', 'text')
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target', 'text')
        .addColumn('filters', 'text')
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('error_code', 'text')
        .addColumn('records', 'bigint')
        .addColumn('bytes', 'bigint')
        .addColumn('sha256', 'text')
        .addColumn('duration_ms', 'bigint')
        .addColumn('request_ids', 'text', (c) => c.notNull())
        .addColumn('address', 'text')
        .addColumn('licence', 'text')
        .addColumn('prev_hash', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
      await db.schema.createIndex('audit_log_actor_action').on('audit_log').columns(['actor', 'action']).execute();
      await db.insertInto('locks').values({ name: 'audit', version: 0 }).execute();
      await db.insertInto('locks').values({ name: 'users', version: 0 }).execute();
    },
  },
  '0003_changes': {
    async up(db: AnyDb) {
      // What the change feed last saw of each record in its window (lib/changes/reconcile.ts).
      await db.schema
        .createTable('watched')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('published_at', 'text')
        .addColumn('status', 'text')
        .addColumn('result', 'text')
        .addColumn('digest', 'text', (c) => c.notNull())
        .addColumn('event_ms', 'bigint')
        .addColumn('display', 'text', (c) => c.notNull())
        .addColumn('withdrawn', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable('changes')
        .addColumn('seq', 'bigint', (c) => c.primaryKey())
        .addColumn('detected_at', 'text', (c) => c.notNull())
        .addColumn('pick_id', 'text', (c) => c.notNull())
        .addColumn('kinds', 'text', (c) => c.notNull())
        .addColumn('sport', 'text')
        .addColumn('league', 'text')
        .addColumn('display', 'text', (c) => c.notNull())
        .addColumn('before', 'text')
        .addColumn('after', 'text')
        .execute();
      await db.schema.createIndex('changes_detected_at').on('changes').column('detected_at').execute();
      // One row: who holds the polling lease, and how the last polls went.
      await db.schema
        .createTable('change_feed')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text')
        .addColumn('lease_expires', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('started_ms', 'bigint')
        .addColumn('outcome', 'text')
        .addColumn('error', 'text')
        .addColumn('complete_ms', 'bigint')
        .addColumn('window_from', 'text')
        .addColumn('window_to', 'text')
        .addColumn('watched', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('requests', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('polls', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('polled_by', 'text')
        .addColumn('requested_ms', 'bigint')
        .execute();
      await db.insertInto('change_feed').values({ name: 'feed' }).execute();
      await db.schema
        .createTable('change_visits')
        .addColumn('email', 'text', (c) => c.primaryKey())
        .addColumn('last_ms', 'bigint', (c) => c.notNull())
        .addColumn('previous_ms', 'bigint')
        .execute();
    },
  },
  '0004_deliveries': {
    async up(db: AnyDb) {
      await db.schema
        .createTable('deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('filters', 'text', (c) => c.notNull())
        .addColumn('schedule', 'text', (c) => c.notNull())
        .addColumn('destination', 'text', (c) => c.notNull())
        .addColumn('secret', 'text')
        .addColumn('host_key', 'text')
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('pause_reason', 'text')
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_due_ms', 'bigint', (c) => c.notNull())
        .addColumn('changes_until', 'text')
        .execute();
      await db.schema
        .createTable('delivery_runs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('delivery_id', 'text', (c) => c.notNull())
        .addColumn('due_ms', 'bigint')
        .addColumn('trigger', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('instance', 'text', (c) => c.notNull())
        .addColumn('lease_expires', 'bigint', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('started_ms', 'bigint', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('records', 'bigint')
        .addColumn('bytes', 'bigint')
        .addColumn('sha256', 'text')
        .addColumn('file', 'text')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'bigint')
        .execute();
      // Once per due time across instances: whoever inserts the run for (delivery, due time, attempt) runs it.
      await db.schema.createIndex('delivery_runs_due').on('delivery_runs').columns(['delivery_id', 'due_ms', 'attempt']).unique().execute();
      await db.schema.createIndex('delivery_runs_started').on('delivery_runs').columns(['delivery_id', 'started_ms']).execute();
    },
  },
  '0005_security_review': {
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
  },
  '0006_walks': {
    async up(db: AnyDb) {
      // What a walk saw while the upstream moved (lib/picks-api/settle.ts): on the export's or run's audit entry, and the feed's.
      await db.schema.alterTable('audit_log').addColumn('walk', 'text').execute();
      await db.schema.alterTable('change_feed').addColumn('walk', 'text').execute();
    },
  },
  ...EVERYDAY_AND_HEALTH,
  ...PROOF,
  ...HISTORY,
  ...TOKENS,
  '0018_oidc_subject': {
    async up(db: AnyDb) {
      // A single sign-on account is bound to its provider's subject, not matched by email alone.
      await db.schema.alterTable('users').addColumn('oidc_sub', 'text').execute();
    },
  },
};

export const migrationProvider: MigrationProvider = { getMigrations: async () => MIGRATIONS };
export const MIGRATION_NAMES = Object.keys(MIGRATIONS).sort();

/**
 * Rolling upgrades (docs/operations.md#upgrades): a migration is additive — new tables, new columns that are
 * nullable or have a default, new indexes; nothing dropped, renamed or given another meaning — so instances
 * of the previous release keep working on the migrated schema while the new one starts. One that is not
 * is named here: instances that do not know it refuse the schema, and the upgrade stops every old instance first.
 */
export const BREAKING_MIGRATIONS: readonly string[] = [];

/** The oldest migration a release must know to use a schema migrated up to `applied`: the newest breaking one. */
export function oldestReader(applied: readonly string[]): string {
  return (
    [...applied]
      .sort()
      .filter((name) => BREAKING_MIGRATIONS.includes(name))
      .pop() ?? MIGRATION_NAMES[0]!
  );
}
