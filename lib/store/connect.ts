import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type KyselyConfig } from 'kysely';
import pg from 'pg';
import { withStatementCache } from './statement-cache';
import { GatedSqliteDialect } from './write-gate';
import type { Database } from './schema';
import type { StoreTarget } from '../config/store';
import { processSlot } from '../process-state';

/**
 * A connection to the store and nothing more: no check of the file, no migration. ./open.ts opens the process's
 * store with it (after checking and migrating); a worker thread of a process that has opened the store opens
 * its own with it (lib/history/keep-worker.ts), since a connection cannot cross threads.
 */

/** The longest one PostgreSQL query may take before the portal gives up on it (docs/architecture.md, "Waits and their bounds"). */
export const QUERY_TIMEOUT_MS = 10_000;

/** How long a SQLite writer waits for another connection's write (the CLI, the history's worker) before failing. */
export const SQLITE_BUSY_MS = 10_000;

/** The embedded database's file, as every connection of the portal uses it. */
export function sqliteConnection(file: string): SQLite.Database {
  const sqlite = new SQLite(file);
  try {
    sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_MS}`);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    return sqlite;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

/** A PostgreSQL pool of at most `max` connections, every query bounded. */
export function postgresPool(url: string, max: number, log: (line: string) => void, label: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 5_000,
    // A server that keeps the connection and says nothing (stopped, a network that drops packets) ends a query here.
    query_timeout: QUERY_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true, // the command-line tools end when their work does
    // bigint columns hold milliseconds: well inside a double.
    types: { getTypeParser: (oid: number, format?: string) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text')) },
  } as pg.PoolConfig);
  // An idle connection that the server drops (restart, failover) must not take the process down.
  pool.on('error', (error) => log(`[store] ${label}: idle connection lost (${describe(error)})`));
  // So must one in use when the server goes away between two queries: its error reaches the query that uses it next.
  pool.on('connect', (client) => client.on('error', (error) => log(`[store] ${label}: connection lost (${describe(error)})`)));
  return pool;
}

export const sqliteKysely = (sqlite: SQLite.Database, log?: KyselyConfig['log']) =>
  new Kysely<Database>({ dialect: new GatedSqliteDialect({ database: withStatementCache(sqlite) }), log });

export const postgresKysely = (pool: pg.Pool, log?: KyselyConfig['log']) =>
  new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });

// Where each store this process opened is (one map per process: Next bundles this module once per layer), so a
// worker thread can open a connection of its own to the same one.
const targetMap = () => processSlot<WeakMap<Kysely<Database>, StoreTarget>>('storeTargets').once(() => new WeakMap());

/** Remembers where `db` connects to (./open.ts, for every store it opens). */
export const rememberTarget = (db: Kysely<Database>, target: StoreTarget): void => void targetMap().set(db, target);

/** Where a store opened by ./open.ts connects to; undefined for a transaction or anything else. */
export const targetOf = (db: Kysely<Database>): StoreTarget | undefined => targetMap().get(db);

/** A connection of its own to a store this process has already opened (so checked and migrated): one connection. */
export function connectStore(target: StoreTarget, log: (line: string) => void = console.error): Kysely<Database> {
  if (target.engine === 'sqlite') return sqliteKysely(sqliteConnection(target.file));
  return postgresKysely(postgresPool(target.url, 1, log, target.label));
}

/** A query that ran into its bound: PostgreSQL's query or connection time-out, SQLite's lock wait. */
export const boundedOut = (error: unknown): boolean =>
  (error as { code?: string }).code === 'SQLITE_BUSY' || /timeout|timed out/i.test((error as Error)?.message ?? '');

export function describe(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message || String(code ?? 'unknown error');
}
