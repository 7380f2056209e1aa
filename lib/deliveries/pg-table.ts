import { isIP } from 'node:net';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { deliveryFailed } from './destinations';
import { createTableSql, quoteIdent, WRITTEN_COLUMNS } from './pg-columns';
import type { ResolvedAddress } from './targets';

/**
 * A table in the partner's own PostgreSQL (node-postgres): one connection to the address checked for this run
 * (TLS still verifies the host name as entered), the table and its sync log (`<table>_syncs`) created when
 * missing, and each run in one transaction: its records streamed into a temporary table with COPY, merged into the
 * table (inserted, or updated where the version differs or the row was marked, counted by PostgreSQL), rows marked
 * `_deleted`, and the run's row in the sync log — which is also where the next run learns what the table is in
 * step with, so the table and that knowledge commit together or not at all.
 */

export const SSL_MODES = ['verify-full', 'require', 'disable'] as const;
export type SslMode = (typeof SSL_MODES)[number];

export interface PgDestination {
  host: string;
  port: number;
  database: string;
  user: string;
  ssl: SslMode;
  schema: string;
  table: string;
}

export interface PgTarget extends PgDestination {
  password: string;
  address: ResolvedAddress;
}

/** What the table was last brought in step with, by this delivery. */
export interface LastSync {
  run: string;
  historyWrite: number;
  filters: Record<string, string>;
  at: string;
}

export interface SyncCounts {
  inserted: number;
  updated: number;
  marked: number;
}

const WAIT_MS = 120_000;

export const tableName = (d: Pick<PgDestination, 'schema' | 'table'>) => `${quoteIdent(d.schema)}.${quoteIdent(d.table)}`;
const syncsName = (d: Pick<PgDestination, 'schema' | 'table'>) => `${quoteIdent(d.schema)}.${quoteIdent(`${d.table}_syncs`)}`;
export const describeTable = (d: PgDestination) => `postgres://${d.user}@${d.host}:${d.port}/${d.database} ${d.schema}.${d.table}`;

const said = (error: unknown) => {
  const e = error as { code?: string; message?: string };
  return `${e.message ?? String(error)}${e.code && /^[0-9A-Z]{5}$/.test(e.code) ? ` (SQLSTATE ${e.code})` : ''}`;
};

export async function connectTo(target: PgTarget): Promise<pg.Client> {
  const client = new pg.Client({
    host: target.address.address,
    port: target.port,
    database: target.database,
    user: target.user,
    password: target.password,
    ssl:
      target.ssl === 'disable'
        ? false
        : { rejectUnauthorized: target.ssl === 'verify-full', ...(isIP(target.host) ? {} : { servername: target.host }) },
    connectionTimeoutMillis: 10_000,
    query_timeout: WAIT_MS,
    statement_timeout: WAIT_MS,
    application_name: 'picks-portal',
  });
  // A connection lost between statements is met by the statement that follows, not as an unhandled event.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw deliveryFailed(`The PostgreSQL server did not take the connection (${said(error)}).`);
  }
  return client;
}

/** The sync log's last row for this delivery; null when there is none (or no log yet): the next run loads the whole set. */
export async function lastSync(client: pg.Client, d: PgDestination, deliveryId: string): Promise<LastSync | null> {
  const exists = await client.query<{ found: string | null }>('select to_regclass($1) as found', [`${syncsName(d)}`]);
  if (!exists.rows[0]?.found) return null;
  const table = await client.query<{ found: string | null }>('select to_regclass($1) as found', [tableName(d)]);
  if (!table.rows[0]?.found) return null;
  const { rows } = await client.query<{ run_id: string; history_write: string; filters: Record<string, string>; synced_at: Date }>(
    `select run_id, history_write, filters, synced_at from ${syncsName(d)} where delivery_id = $1 order by synced_at desc, run_id desc limit 1`,
    [deliveryId],
  );
  const row = rows[0];
  return row ? { run: row.run_id, historyWrite: Number(row.history_write), filters: row.filters, at: row.synced_at.toISOString() } : null;
}

/** One run's writes, handed to `work` inside the transaction. */
export interface TableWriter {
  /** Stages records (each a line of COPY: ./pg-columns.ts copyLine): inserted, or updated where their version differs, at the end. */
  stage(rows: { id: string; line: string }[]): Promise<void>;
  /** Ids whose rows are to be marked `_deleted` (withdrawn, or out of the filters). */
  mark(ids: string[]): void;
}

export interface SyncRow {
  run: string;
  deliveryId: string;
  deliveryName: string;
  mode: 'full' | 'changes';
  historyWrite: number;
  filters: Record<string, string>;
  records: number;
  sha256: string;
}

/**
 * The run's transaction: the schema, table and sync log made when missing, the table locked against another run,
 * `work` staging its records, then the merge, the marks, and the sync log's row with the manifest `sign` makes
 * from the counts. Nothing is left behind when any of it fails (the transaction is rolled back).
 */
export async function syncInTransaction(
  client: pg.Client,
  d: PgDestination,
  deliveryId: string,
  expected: LastSync | null,
  mode: 'full' | 'changes',
  at: Date,
  work: (writer: TableWriter) => Promise<SyncRow>,
  sign: (counts: SyncCounts) => Promise<{ manifest: Buffer; jws: string }>,
): Promise<SyncCounts> {
  const table = tableName(d);
  const columns = WRITTEN_COLUMNS.map((c) => quoteIdent(c.name));
  let copying: { stream: ReturnType<typeof copyFrom>; done: Promise<void> } | null = null;
  try {
    await client.query('begin');
    await client.query(`create schema if not exists ${quoteIdent(d.schema)}`);
    await client.query(createTableSql(table));
    await client.query(
      `create table if not exists ${syncsName(d)} (run_id text primary key, delivery_id text not null, delivery_name text not null, synced_at timestamptz not null, mode text not null, history_write bigint not null, filters jsonb not null, records integer not null, inserted integer not null, updated integer not null, marked integer not null, sha256 text not null, manifest jsonb not null, jws text not null)`,
    );
    // One run at a time per table, whichever delivery or instance: the next waits (bounded by statement_timeout).
    await client.query(`lock table ${table} in share row exclusive mode`);
    // Changes since a run that is no longer the last (another instance's run in between) would be stale; a full load is not.
    const current = expected ? await lastSync(client, d, deliveryId) : null;
    if (expected && current?.run !== expected.run)
      throw deliveryFailed(
        `The table was left as it was: run ${current?.run ?? '(none)'} brought it in step meanwhile; the next run goes on from it.`,
      );
    await client.query(
      `create temp table picks_stage (${WRITTEN_COLUMNS.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ')}) on commit drop`,
    );
    const marks = new Set<string>();
    const staged = new Set<string>();
    const copy = client.query(copyFrom(`copy picks_stage (${columns.join(', ')}) from stdin`));
    const copied = finished(copy);
    // Its failure is met where it is awaited (after the work, or at a full buffer), never as unhandled meanwhile.
    copied.catch(() => undefined);
    copying = { stream: copy, done: copied };
    const writer: TableWriter = {
      async stage(rows) {
        let text = '';
        // A record once (the merge touches a row once): the first of a walk that read it twice is the one written.
        for (const row of rows) {
          if (staged.has(row.id)) continue;
          staged.add(row.id);
          text += row.line;
        }
        if (text !== '' && !copy.write(text)) await Promise.race([once(copy, 'drain'), copied]);
      },
      mark(ids) {
        for (const id of ids) marks.add(id);
      },
    };
    const row = await work(writer);
    copy.end();
    await copied;
    copying = null;
    const { rows: merged } = await client.query<{ inserted: number; updated: number }>(
      `with up as (insert into ${table} as t (${columns.join(', ')}, "_deleted", "_synced_at") select ${columns.join(', ')}, false, $1 from picks_stage on conflict (id) do update set ${columns
        .slice(1)
        .map((c) => `${c} = excluded.${c}`)
        .join(
          ', ',
        )}, "_deleted" = false, "_synced_at" = excluded."_synced_at" where t."_version" is distinct from excluded."_version" or t."_deleted" returning (xmax = 0) as inserted) select (count(*) filter (where inserted))::int as inserted, (count(*) filter (where not inserted))::int as updated from up`,
      [at],
    );
    const counts: SyncCounts = { inserted: merged[0]!.inserted, updated: merged[0]!.updated, marked: 0 };
    if (mode === 'full')
      counts.marked = (
        await client.query(
          `update ${table} t set "_deleted" = true, "_synced_at" = $1 where not t."_deleted" and not exists (select 1 from picks_stage s where s.id = t.id)`,
          [at],
        )
      ).rowCount!;
    else
      for (let start = 0, ids = [...marks]; start < ids.length; start += 5_000)
        counts.marked += (
          await client.query(`update ${table} set "_deleted" = true, "_synced_at" = $1 where not "_deleted" and id = any($2::text[])`, [
            at,
            ids.slice(start, start + 5_000),
          ])
        ).rowCount!;
    const signed = await sign(counts);
    await client.query(
      `insert into ${syncsName(d)} (run_id, delivery_id, delivery_name, synced_at, mode, history_write, filters, records, inserted, updated, marked, sha256, manifest, jws) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        row.run,
        row.deliveryId,
        row.deliveryName,
        at,
        row.mode,
        row.historyWrite,
        JSON.stringify(row.filters),
        row.records,
        counts.inserted,
        counts.updated,
        counts.marked,
        row.sha256,
        signed.manifest.toString('utf8'),
        signed.jws,
      ],
    );
    await client.query('commit');
    return counts;
  } catch (error) {
    // A COPY still open is abandoned first (PostgreSQL is told it failed), or the rollback would wait behind it.
    if (copying) {
      copying.stream.destroy(new Error('the run failed'));
      await copying.done.catch(() => undefined);
    }
    await client.query('rollback').catch(() => undefined);
    if ((error as { code?: string }).code === 'DELIVERY_FAILED') throw error;
    throw deliveryFailed(`The table was left as it was: ${said(error)}.`);
  }
}

/** Tries the table's place without writing: the server and the credentials, then whether the table is there or may be made. */
export async function probeTable(target: PgTarget): Promise<{ step: string; ok: boolean; detail: string }[]> {
  let client: pg.Client;
  try {
    client = await connectTo(target);
  } catch (error) {
    return [{ step: 'connect', ok: false, detail: (error as Error).message }];
  }
  const steps = [{ step: 'connect', ok: true, detail: `signed in to ${target.database} as ${target.user}` }];
  try {
    const { rows } = await client.query<{ found: string | null; rows: string | null; writable: boolean; creatable: boolean }>(
      `select to_regclass($1) as found,
        case when to_regclass($1) is null then null else (select reltuples::bigint::text from pg_class where oid = to_regclass($1)) end as rows,
        case when to_regclass($1) is null then false else has_table_privilege(to_regclass($1), 'INSERT, UPDATE') end as writable,
        coalesce(has_schema_privilege($2, 'CREATE'), has_database_privilege(current_database(), 'CREATE')) as creatable`,
      [tableName(target), target.schema],
    );
    const row = rows[0]!;
    const ok = row.found ? row.writable : row.creatable;
    steps.push({
      step: 'table',
      ok,
      detail: row.found
        ? `${target.schema}.${target.table} is there (about ${Math.max(0, Number(row.rows ?? 0))} rows)${row.writable ? ' and may be written' : ': this user may not insert and update it'}`
        : row.creatable
          ? `${target.schema}.${target.table} is not there yet: the first run makes it and loads the whole set`
          : `${target.schema}.${target.table} is not there, and this user may not create it in ${target.schema}`,
    });
  } catch (error) {
    steps.push({ step: 'table', ok: false, detail: said(error) });
  } finally {
    await client.end().catch(() => undefined);
  }
  return steps;
}
