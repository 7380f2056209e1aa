import type { Migration, MigrationProvider } from 'kysely';
import { migration as m0001 } from './0001_state';
import { migration as m0002 } from './0002_audit';
import { migration as m0003 } from './0003_changes';
import { migration as m0004 } from './0004_deliveries';
import { migration as m0005 } from './0005_security_review';
import { migration as m0006 } from './0006_walks';
import { migration as m0007 } from './0007_preferences';
import { migration as m0008 } from './0008_feed_health';
import { migration as m0009 } from './0009_alerts';
import { migration as m0010 } from './0010_alert_channels';
import { migration as m0011 } from './0011_proof';
import { migration as m0012 } from './0012_run_licence';
import { migration as m0013 } from './0013_history';
import { migration as m0014 } from './0014_tokens';
import { migration as m0015 } from './0015_history_heads';
import { migration as m0016 } from './0016_token_owner_since';
import { migration as m0017 } from './0017_key_compromised';
import { migration as m0018 } from './0018_oidc_subject';
import { migration as m0019 } from './0019_jobs';
import { migration as m0020 } from './0020_delivered_by_record';
import { migration as m0021 } from './0021_events';
import { migration as m0022 } from './0022_event_checkpoints';
import { migration as m0023 } from './0023_token_webhooks';
import { migration as m0024 } from './0024_history_writes';
import { migration as m0025 } from './0025_webhook_confirmation';
import { migration as m0026 } from './0026_audit_sealed_rows';
import { migration as m0027 } from './0027_record_index';
import { migration as m0028 } from './0028_request_logs';
import { migration as m0029 } from './0029_token_roll';

/**
 * Versioned migrations, one a file (`NNNN_what.ts`), applied in name order at start by Kysely's Migrator on
 * either engine. A migration, once released, is never edited: changes come as a new file, listed here (a
 * bundle cannot read a folder at run time; tests/unit/migrations.test.ts checks that this list is the folder).
 * Only the schema builder is used, so one migration serves SQLite and PostgreSQL.
 */
export const MIGRATIONS: Record<string, Migration> = {
  '0001_state': m0001,
  '0002_audit': m0002,
  '0003_changes': m0003,
  '0004_deliveries': m0004,
  '0005_security_review': m0005,
  '0006_walks': m0006,
  '0007_preferences': m0007,
  '0008_feed_health': m0008,
  '0009_alerts': m0009,
  '0010_alert_channels': m0010,
  '0011_proof': m0011,
  '0012_run_licence': m0012,
  '0013_history': m0013,
  '0014_tokens': m0014,
  '0015_history_heads': m0015,
  '0016_token_owner_since': m0016,
  '0017_key_compromised': m0017,
  '0018_oidc_subject': m0018,
  '0019_jobs': m0019,
  '0020_delivered_by_record': m0020,
  '0021_events': m0021,
  '0022_event_checkpoints': m0022,
  '0023_token_webhooks': m0023,
  '0024_history_writes': m0024,
  '0025_webhook_confirmation': m0025,
  '0026_audit_sealed_rows': m0026,
  '0027_record_index': m0027,
  '0028_request_logs': m0028,
  '0029_token_roll': m0029,
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
