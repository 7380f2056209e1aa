import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/**
 * The embedded database as Kysely's SqliteDialect sees it, with each SQL text prepared once. Kysely asks
 * better-sqlite3 to prepare every query afresh; a page view runs the same few (session revocation, the
 * account, change counts), and preparing them showed in the overview's CPU profile under load. A statement holds no result, only compiled SQL, so reusing it never returns stale rows;
 * SQLite re-prepares it by itself after a schema change. One still being iterated (busy) is never handed
 * out twice: a fresh one is prepared instead. The least recently used statement leaves past `size`.
 */
export function withStatementCache(sqlite: SQLite.Database, size = 200): SqliteDatabase {
  return { close: () => sqlite.close(), prepare: cachedPrepare(sqlite, size) };
}

/**
 * The whole better-sqlite3 database with the same cache in front of `prepare`, for a library that is handed the
 * database itself (rate-limiter-flexible prepares its upsert on every request an API token makes).
 */
export function preparingOnce(sqlite: SQLite.Database, size = 50): SQLite.Database {
  const prepare = cachedPrepare(sqlite, size);
  return new Proxy(sqlite, {
    get(target, property) {
      if (property === 'prepare') return prepare;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function cachedPrepare(sqlite: SQLite.Database, size: number) {
  const cache = new Map<string, SQLite.Statement>();
  return (sql: string) => {
    const cached = cache.get(sql);
    cache.delete(sql);
    const statement = cached && !cached.busy ? cached : sqlite.prepare(sql);
    cache.set(sql, statement); // now the most recently used (a Map keeps insertion order)
    if (cache.size > size) cache.delete(cache.keys().next().value!);
    return statement;
  };
}
