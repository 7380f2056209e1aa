import { SqliteDialect, type CompiledQuery, type DatabaseConnection, type Driver, type TransactionSettings } from 'kysely';
import { processSlot } from '../process-state';

/**
 * The serving thread's writes to the embedded database wait here, without holding the event loop, while this
 * process's history worker writes a batch on its own connection (lib/history/capture.ts holds the gate from
 * the worker's "go" to its "batched"). better-sqlite3 waits for another connection's write lock inside the
 * call (SQLite's busy timeout), so a write of the serving thread that met a batch stopped every page, API v1
 * request and job of the process until the batch was committed: up to 1.1 s at a time under bench:soak.
 * A hold ends by itself after its bound (then a writer meets SQLite's busy timeout, as before).
 * PostgreSQL needs none of this: its queries wait on their own connections, asynchronously.
 */

interface Hold {
  done: Promise<void>;
}

const gate = () => processSlot<{ held: Hold | null }>('storeWriteGate').once(() => ({ held: null }));

/** Holds the serving thread's writes until the returned function is called, or `maxMs` has passed. */
export function holdStoreWrites(maxMs: number): () => void {
  const state = gate();
  let release!: () => void;
  const hold: Hold = { done: new Promise<void>((resolve) => (release = resolve)) };
  const timer = setTimeout(() => release(), maxMs);
  timer.unref();
  state.held = hold;
  void hold.done.then(() => {
    clearTimeout(timer);
    if (state.held === hold) state.held = null;
  });
  return release;
}

/** Resolves at once when nothing holds the writes, else when the hold ends. */
export function storeWritesFree(): Promise<void> | null {
  return gate().held?.done ?? null;
}

const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);
const WRITE_SQL = /^\s*(insert|update|delete|replace)\b/i;
const writes = (query: CompiledQuery) => WRITES.has(query.query.kind) || (query.query.kind === 'RawNode' && WRITE_SQL.test(query.sql));

/**
 * Kysely's SQLite dialect with the gate in front of the writes: a statement that writes outside a transaction, and
 * every transaction's begin, wait while the gate is held, before they take the one connection, so reads go on.
 * Nothing inside a transaction waits: it may already hold the write lock the worker is waiting for, and one begun
 * before its first write must not see the worker commit in between (SQLite would refuse the write:
 * SQLITE_BUSY_SNAPSHOT).
 */
export class GatedSqliteDialect extends SqliteDialect {
  createDriver(): Driver {
    return new GatedDriver(super.createDriver());
  }
}

/** A connection lent by Kysely: the one SQLite connection, taken from the inner driver at its first use. */
class Lent implements DatabaseConnection {
  taken: DatabaseConnection | null = null;
  inTransaction = false;

  constructor(private readonly inner: Driver) {}

  /**
   * The connection, taken once the gate lets a write through (at once for a read or inside a transaction). It is
   * never kept while a write waits for the gate, so reads go on meanwhile: one taken by an earlier read of a
   * connection lent for several statements (`db.connection()`) is given back, as is one taken while a hold
   * began; outside a transaction it holds nothing between statements.
   */
  async take(write: boolean): Promise<DatabaseConnection> {
    for (;;) {
      const held = write ? storeWritesFree() : null;
      if (!held) {
        this.taken ??= await this.inner.acquireConnection(); // the inner driver's mutex: one user at a time
        if (!write || !storeWritesFree()) return this.taken;
        continue; // a hold began while this waited for the connection
      }
      if (this.taken) await this.inner.releaseConnection(this.taken);
      this.taken = null;
      await held;
    }
  }

  async executeQuery<R>(query: CompiledQuery) {
    const connection = await this.take(!this.inTransaction && writes(query));
    return connection.executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number) {
    yield* (await this.take(false)).streamQuery<R>(query, chunkSize);
  }
}

class GatedDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init = () => this.inner.init();
  destroy = () => this.inner.destroy();
  acquireConnection = async (): Promise<DatabaseConnection> => new Lent(this.inner);

  async releaseConnection(lent: DatabaseConnection): Promise<void> {
    const { taken } = lent as Lent;
    if (taken) await this.inner.releaseConnection(taken);
  }

  async beginTransaction(lent: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(await (lent as Lent).take(true), settings);
    (lent as Lent).inTransaction = true;
  }

  async commitTransaction(lent: DatabaseConnection): Promise<void> {
    try {
      await this.inner.commitTransaction(await (lent as Lent).take(false));
    } finally {
      (lent as Lent).inTransaction = false;
    }
  }

  async rollbackTransaction(lent: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(await (lent as Lent).take(false));
    } finally {
      (lent as Lent).inTransaction = false;
    }
  }

  savepoint: Driver['savepoint'] = async (lent, name, compile) => this.inner.savepoint!(await (lent as Lent).take(false), name, compile);
  rollbackToSavepoint: Driver['rollbackToSavepoint'] = async (lent, name, compile) =>
    this.inner.rollbackToSavepoint!(await (lent as Lent).take(false), name, compile);
  releaseSavepoint: Driver['releaseSavepoint'] = async (lent, name, compile) =>
    this.inner.releaseSavepoint!(await (lent as Lent).take(false), name, compile);
}
