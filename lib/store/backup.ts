import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { verifyAudit } from './audit';
import { MIGRATION_NAMES } from './migrations';
import type { Database } from './schema';

/**
 * Backups of the embedded database, and restoring one. A backup is SQLite's online backup of the live file
 * (consistent while the portal writes to it; a copy of the file could catch half a transaction), checked
 * after it is made. A restore checks the backup whole (integrity, a schema this portal knows, the audit
 * chain), refuses while a portal runs on the data directory (its pid file), keeps the database it replaces
 * beside it, and puts the backup in its place. PostgreSQL is backed up with pg_dump (docs/operations.md).
 */

export interface BackupSummary {
  file: string;
  bytes: number;
  migrations: number;
  users: number;
  auditEntries: number;
  auditChain: string;
  deliveries: number;
  changes: number;
}

export class BackupError extends Error {}

/** What a backup file holds, after checking it: throws a BackupError saying what is wrong. */
export async function checkBackup(file: string): Promise<BackupSummary> {
  if (!existsSync(file)) throw new BackupError(`${file} does not exist`);
  let sqlite: SQLite.Database;
  try {
    sqlite = new SQLite(file, { readonly: true, fileMustExist: true });
    const integrity = sqlite.pragma('integrity_check(1)', { simple: true });
    if (integrity !== 'ok') throw new Error(String(integrity));
  } catch (error) {
    throw new BackupError(`${file} is not a sound SQLite database (${(error as Error).message})`);
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    const tables = sqlite.prepare(`select name from sqlite_master where type = 'table'`).pluck().all() as string[];
    if (!tables.includes('kysely_migration')) throw new BackupError(`${file} is not a backup of the portal's store (no migrations)`);
    const names = sqlite.prepare('select name from kysely_migration').pluck().all() as string[];
    const unknown = names.filter((name) => !MIGRATION_NAMES.includes(name));
    if (unknown.length) throw new BackupError(`${file} comes from a newer portal (${unknown.join(', ')}): restore it with that version`);
    const verdict = await verifyAudit(db);
    if (!verdict.ok) throw new BackupError(`${file}: its audit trail does not verify (entry ${verdict.seq}: ${verdict.problem})`);
    const count = (table: string) => Number(sqlite.prepare(`select count(*) from ${table}`).pluck().get());
    return {
      file,
      bytes: statSync(file).size,
      migrations: names.length,
      users: count('users'),
      auditEntries: verdict.entries,
      auditChain: verdict.head,
      deliveries: count('deliveries'),
      changes: count('changes'),
    };
  } finally {
    await db.destroy();
  }
}

/** The backup file opened read-only for `read` (what it holds, checked by the layers above: lib/audit/restore-check.ts). */
export async function readBackup<T>(file: string, read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(file, { readonly: true, fileMustExist: true }) }) });
  try {
    return await read(db);
  } finally {
    await db.destroy();
  }
}

/**
 * A consistent copy of the live embedded database at `dest` (SQLite's online backup), checked. It is written
 * owner-only from its first byte (it holds password hashes, as the database does), under a temporary name, and
 * renamed only once checked: no one else can read it, and no half-made file carries its name.
 */
export async function backupSqlite(source: string, dest: string): Promise<BackupSummary> {
  if (!existsSync(source)) throw new BackupError(`there is no embedded database at ${source}`);
  if (existsSync(dest)) throw new BackupError(`${dest} exists already: name a new file`);
  const partial = `${dest}.partial-${randomBytes(6).toString('hex')}`;
  writeFileSync(partial, '', { mode: 0o600, flag: 'wx' }); // SQLite's backup writes into it, keeping its mode
  const sqlite = new SQLite(source, { fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 10000');
    await sqlite.backup(partial);
    // A copy of a WAL database is in WAL mode too, and every later opening of it (the checks here, a restore's)
    // would leave -wal and -shm files beside it: it is made a single self-contained file.
    const copy = new SQLite(partial, { fileMustExist: true });
    copy.pragma('journal_mode = DELETE');
    copy.close();
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    sqlite.close();
    for (const suffix of ['-wal', '-shm']) rmSync(partial + suffix, { force: true });
  }
  try {
    const summary = await checkBackup(partial);
    if (existsSync(dest)) throw new BackupError(`${dest} exists already: name a new file`);
    renameSync(partial, dest);
    return { ...summary, file: dest };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/** The pid file a portal on the embedded database keeps in its data directory while it runs. */
export const pidFile = (dataDir: string) => path.join(dataDir, 'portal.pid');

export function notePortalRunning(dataDir: string): void {
  const file = pidFile(dataDir);
  writeFileSync(file, String(process.pid), { mode: 0o600 });
  process.once('exit', () => {
    if (existsSync(file) && readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
  });
}

function runningPortal(dataDir: string): number | null {
  const file = pidFile(dataDir);
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8'));
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null; // a pid file left by a portal that is gone
  }
}

/** Puts a checked backup in place of the embedded database of a stopped portal; the one replaced is kept beside it. */
export async function restoreSqlite(backup: string, target: string, now = new Date()): Promise<BackupSummary & { keptAs: string | null }> {
  const summary = await checkBackup(backup);
  const pid = runningPortal(path.dirname(target));
  if (pid !== null) throw new BackupError(`a portal (process ${pid}) is running on ${path.dirname(target)}: stop it first`);
  let keptAs: string | null = null;
  // Onto a new machine: the data directory is made, owner-only, as the portal makes it.
  mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  if (existsSync(target)) {
    keptAs = `${target}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
    renameSync(target, keptAs);
    for (const suffix of ['-wal', '-shm']) if (existsSync(target + suffix)) renameSync(target + suffix, keptAs + suffix);
  }
  const partial = `${target}.restoring-${randomBytes(6).toString('hex')}`;
  writeFileSync(partial, '', { mode: 0o600, flag: 'wx' });
  copyFileSync(backup, partial);
  chmodSync(partial, 0o600);
  renameSync(partial, target);
  return { ...summary, keptAs };
}
