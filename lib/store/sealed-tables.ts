import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './schema';

/**
 * What decides who may act and where data goes, as the audit trail's checkpoints seal it (lib/audit/checkpoints.ts):
 * for each table, the columns that carry that decision (people's role, state and password hash; tokens' scope,
 * limits, owner and hash; deliveries' and webhooks' destinations, sealed secrets and owners). A row's hash is the
 * sha256 of those columns; a table's digest the sha256 of its rows' keys and hashes in key order. What the portal
 * changes on its own as it works (sign-in times, run state, cursors, attempts) is left out: only a person's or an
 * operator's decision moves a digest.
 */

type Db = Kysely<Database>;

export const SEALED_TABLES = {
  users: {
    key: 'email',
    columns: ['email', 'role', 'disabled', 'password_hash', 'session_epoch', 'created_at', 'provider', 'oidc_sub', 'demo'],
  },
  api_tokens: {
    key: 'id',
    columns: ['id', 'owner', 'owner_since_ms', 'hash', 'scope', 'expires_ms', 'rate_per_minute', 'daily_records', 'revoked_ms'],
  },
  deliveries: {
    key: 'id',
    columns: ['id', 'kind', 'format', 'filters', 'destination', 'secret', 'host_key', 'created_by', 'encrypt_to', 'encrypt_fingerprint'],
  },
  token_webhooks: { key: 'id', columns: ['id', 'token_id', 'url', 'secret', 'kinds', 'created_by', 'confirmed_by', 'confirmed_ms'] },
  alert_webhooks: { key: 'id', columns: ['id', 'url', 'format', 'secret', 'kinds', 'created_by'] },
} as const;
export type SealedTable = keyof typeof SEALED_TABLES;
export const SEALED_TABLE_NAMES = Object.keys(SEALED_TABLES) as SealedTable[];

export interface TableSeal {
  digest: string;
  /** Each row's key and hash, in key order. */
  rows: Array<[string, string]>;
}

const byKey = ([a]: [string, string], [b]: [string, string]) => (a < b ? -1 : a > b ? 1 : 0);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The same value whichever engine kept it (bigint, number or string; null as null). */
const plain = (value: unknown) =>
  value === null || value === undefined ? null : typeof value === 'number' || typeof value === 'bigint' ? String(value) : value;

export const digestOf = (rows: Array<[string, string]>) => sha256(rows.map(([key, hash]) => `${key}\t${hash}\n`).join(''));

/** One table's seal as the store holds it now. */
export async function sealOfTable(db: Db, table: SealedTable): Promise<TableSeal> {
  const { key, columns } = SEALED_TABLES[table];
  const found = (await db
    .selectFrom(table)
    .select(columns as never)
    .execute()) as unknown as Array<Record<string, unknown>>;
  const rows = found
    .map((row): [string, string] => [String(row[key]), sha256(JSON.stringify(columns.map((column) => plain(row[column]))))])
    .sort(byKey);
  return { digest: digestOf(rows), rows };
}

/** Every sealed table's seal. */
export async function sealsOfTables(db: Db): Promise<Record<SealedTable, TableSeal>> {
  const seals = {} as Record<SealedTable, TableSeal>;
  for (const table of SEALED_TABLE_NAMES) seals[table] = await sealOfTable(db, table);
  return seals;
}

/** Keeps each table's row hashes as the newest checkpoint sealed them (replacing the previous), in the caller's transaction. */
export async function keepSealedRows(db: Db, checkpoint: number, seals: Record<SealedTable, TableSeal>): Promise<void> {
  await db.deleteFrom('audit_sealed_rows').execute();
  for (const table of SEALED_TABLE_NAMES) {
    const rows = seals[table].rows.map(([key, hash]) => ({ checkpoint_id: checkpoint, table_name: table, row_key: key, row_hash: hash }));
    for (let i = 0; i < rows.length; i += 200)
      await db
        .insertInto('audit_sealed_rows')
        .values(rows.slice(i, i + 200))
        .execute();
  }
}

/**
 * The row hashes kept with the newest checkpoint, per table. Whichever checkpoint they were kept with, a table's
 * rows are vouched for only where their digest is the one a verified checkpoint signed (lib/audit/verify-tables.ts).
 */
export async function sealedRows(db: Db): Promise<Map<string, Array<[string, string]>>> {
  const found = await db.selectFrom('audit_sealed_rows').select(['table_name', 'row_key', 'row_hash']).execute();
  const tables = new Map<string, Array<[string, string]>>();
  for (const row of found) {
    const rows = tables.get(row.table_name) ?? [];
    rows.push([row.row_key, row.row_hash]);
    tables.set(row.table_name, rows);
  }
  for (const rows of tables.values()) rows.sort(byKey);
  return tables;
}
