import { closeSync, mkdirSync, openSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type SQLite from 'better-sqlite3';
import { Migrator, type Kysely, type KyselyConfig } from 'kysely';
import type pg from 'pg';
import { boundedOut, describe, postgresKysely, postgresPool, rememberTarget, sqliteConnection, sqliteKysely } from './connect';
import { MIGRATION_NAMES, migrationProvider, oldestReader } from './migrations';
import { readMeta, writeMeta } from './meta';
import type { Database } from './schema';
import type { StoreTarget } from '../config/store';
import { processSlot } from '../process-state';
import { waitHitBound } from '../waits';

export { QUERY_TIMEOUT_MS, describe } from './connect';

/**
 * Opens the store on either engine and brings its schema to this code's version. PostgreSQL that cannot
 * be reached is retried with backoff (saying so); a damaged embedded file and a database migrated by a
 * newer portal stop the start with a StoreError naming what and where. Nothing is ever recreated.
 */

export interface Store {
  db: Kysely<Database>;
  target: StoreTarget;
  /** This process, as it names itself in leases. */
  instance: string;
  sqlite?: SQLite.Database;
  pool?: pg.Pool;
  close(): Promise<void>;
}

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

export interface OpenOptions {
  /** How many connection attempts (PostgreSQL); Infinity for a server that must wait for its database. */
  attempts?: number;
  log?: (line: string) => void;
  /** Each query's duration, and whether it failed (the portal's metrics). */
  observe?: (ms: number, failed: boolean) => void;
}

const RETRYABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', '57P03']);

export async function openStore(target: StoreTarget, options: OpenOptions = {}): Promise<Store> {
  const store = target.engine === 'sqlite' ? openSqlite(target, options) : await openPostgres(target, options);
  try {
    await migrate(store, options);
    rememberTarget(store.db, target);
    return store;
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}

const queryLog =
  (options: OpenOptions): KyselyConfig['log'] =>
  (event) => {
    if (event.level === 'error' && boundedOut(event.error)) waitHitBound('store');
    options.observe?.(event.queryDurationMillis, event.level === 'error');
  };

function openSqlite(target: Extract<StoreTarget, { engine: 'sqlite' }>, options: OpenOptions): Store {
  mkdirSync(path.dirname(target.file), { recursive: true, mode: 0o700 });
  // Created owner-only (it holds password hashes); SQLite gives its -wal and -shm files the same mode.
  closeSync(openSync(target.file, 'a', 0o600));
  let sqlite: SQLite.Database | undefined;
  try {
    sqlite = sqliteConnection(target.file); // the CLI, the portal and its history worker write the same file
    const check = sqlite.pragma('quick_check(1)', { simple: true });
    if (check !== 'ok') throw Object.assign(new Error(String(check)), { code: 'SQLITE_CORRUPT' });
  } catch (error) {
    sqlite?.close();
    const code = (error as { code?: string }).code ?? '';
    if (/^SQLITE_(NOTADB|CORRUPT)/.test(code)) {
      throw new StoreError(
        `${target.label} is damaged (${(error as Error).message}). It was left as it is: restore it from a backup, or move it away to start with an empty one.`,
      );
    }
    throw new StoreError(`${target.label} cannot be opened: ${(error as Error).message}`);
  }
  const db = sqliteKysely(sqlite, queryLog(options));
  return { db, target, instance: instanceName(), sqlite, close: () => db.destroy() };
}

async function openPostgres(target: Extract<StoreTarget, { engine: 'postgres' }>, options: OpenOptions): Promise<Store> {
  const log = options.log ?? ((line: string) => console.error(line));
  const attempts = options.attempts ?? 1;
  const pool = postgresPool(target.url, 10, log, target.label);
  for (let attempt = 1; ; attempt += 1) {
    try {
      await pool.query('select 1');
      break;
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (!RETRYABLE.has(code) && !/timeout/i.test((error as Error).message)) {
        await pool.end().catch(() => undefined);
        throw new StoreError(`${target.label} refused the connection (${describe(error)}): check DATABASE_URL.`);
      }
      if (attempt >= attempts) {
        await pool.end().catch(() => undefined);
        throw new StoreError(`${target.label} cannot be reached (${describe(error)}).`);
      }
      const waitMs = Math.min(30_000, 500 * 2 ** (attempt - 1));
      log(`[store] ${target.label} cannot be reached (${describe(error)}): trying again in ${waitMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
  const db = postgresKysely(pool, queryLog(options));
  return { db, target, instance: instanceName(), pool, close: () => db.destroy() };
}

/**
 * Embedded files being brought up to date by this process (one map however often Next bundles this module): a
 * second open of the same file waits its turn.
 */
const migratingFiles = () => processSlot<Map<string, Promise<void>>>('storeMigrations').once(() => new Map());

/**
 * Brings the schema up to date, one process at a time: PostgreSQL through Kysely's migration lock; an embedded
 * file inside one immediate (write-locked) transaction, so that a second process opening a new file at the same
 * moment (the portal and `npm run export` on a fresh install) waits for the first (the file's busy timeout) and
 * then finds it up to date, and a failed migration leaves the file as it was.
 */
async function migrate(store: Store, options: OpenOptions): Promise<void> {
  const sqlite = store.sqlite;
  if (!sqlite || store.target.engine !== 'sqlite') return migrateNow(store, options);
  const file = store.target.file;
  const migrating = migratingFiles();
  const before = migrating.get(file) ?? Promise.resolve();
  const mine = before.then(async () => {
    sqlite.exec('BEGIN IMMEDIATE');
    try {
      await migrateNow(store, options);
      sqlite.exec('COMMIT');
    } catch (error) {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      throw error;
    }
  });
  const settled = mine.catch(() => undefined);
  migrating.set(file, settled);
  try {
    await mine;
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreError(`${store.target.label}: the schema could not be brought up to date (${describe(error)}).`);
  } finally {
    if (migrating.get(file) === settled) migrating.delete(file);
  }
}

async function migrateNow(store: Store, options: OpenOptions): Promise<void> {
  const tables = await store.db.introspection.getTables({ withInternalKyselyTables: true });
  if (tables.some((table) => table.name === 'kysely_migration')) {
    const done = await store.db
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's own bookkeeping table
      .selectFrom('kysely_migration' as any)
      .select('name')
      .execute();
    const names = done.map((row) => String(row.name));
    const unknown = names.filter((name) => !MIGRATION_NAMES.includes(name));
    if (unknown.length > 0) {
      // A newer release migrated it. Its additive migrations leave the schema usable by this one (a rolling upgrade).
      const reader = await readMeta(store.db, READABLE_BY).catch(() => undefined);
      const usable = reader !== undefined && MIGRATION_NAMES.includes(reader) && MIGRATION_NAMES.every((name) => names.includes(name));
      if (!usable)
        throw new StoreError(
          `${store.target.label} was brought to a newer schema (${unknown.join(', ')}) by a newer version of the portal. This version refuses to start on it: run the newer version, or restore a backup.`,
        );
      (options.log ?? console.warn)(
        `[store] ${store.target.label} has newer additive migrations (${unknown.join(', ')}): this version works with it until it is upgraded`,
      );
      return;
    }
  }
  const { error } = await new Migrator({ db: store.db, provider: migrationProvider }).migrateToLatest();
  if (error) throw new StoreError(`${store.target.label}: the schema could not be brought up to date (${describe(error)}).`);
  await writeMeta(store.db, READABLE_BY, oldestReader(MIGRATION_NAMES));
}

/** The oldest migration a release must know to use this schema (lib/store/migrations.ts, BREAKING_MIGRATIONS). */
const READABLE_BY = 'schema.readable-by';

function instanceName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}
