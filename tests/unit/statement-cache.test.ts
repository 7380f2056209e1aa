import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type Generated } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withStatementCache } from '@/lib/store/statement-cache';

/** The embedded store prepares each SQL text once, and a reused statement still reads the rows of now. */

interface Db {
  notes: { id: Generated<number>; body: string };
}

let sqlite: SQLite.Database;
afterEach(() => sqlite?.open && sqlite.close());

function open(size?: number) {
  sqlite = new SQLite(':memory:');
  sqlite.exec('create table notes (id integer primary key, body text not null)');
  const prepare = vi.spyOn(sqlite, 'prepare');
  const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite, size) }) });
  return { db, prepare };
}

describe('the statement cache', () => {
  it('prepares a query once however often it runs, and every run sees the rows written since', async () => {
    const { db, prepare } = open();
    const bodies = () => db.selectFrom('notes').select('body').orderBy('id').execute();
    expect(await bodies()).toEqual([]);
    await db.insertInto('notes').values({ body: 'first' }).execute();
    expect(await bodies()).toEqual([{ body: 'first' }]);
    await db.insertInto('notes').values({ body: 'second' }).execute();
    await db.updateTable('notes').set({ body: 'changed' }).where('id', '=', 1).execute();
    expect(await bodies()).toEqual([{ body: 'changed' }, { body: 'second' }]);
    // One select, one insert (its two runs share the SQL text), one update.
    expect(prepare).toHaveBeenCalledTimes(3);
    await db.destroy();
    expect(sqlite.open).toBe(false);
  });

  it('keeps at most `size` statements, dropping the least recently used', async () => {
    const { db, prepare } = open(2);
    const byId = (id: number) => db.selectFrom('notes').select('id').where('id', '=', id).execute(); // one text
    const all = () => db.selectFrom('notes').selectAll().execute();
    const count = () =>
      db
        .selectFrom('notes')
        .select((eb) => eb.fn.countAll().as('n'))
        .execute();
    await byId(1);
    await all();
    await byId(2); // byId is now the most recent; all() the least
    await count(); // evicts all()
    expect(prepare).toHaveBeenCalledTimes(3);
    await byId(3);
    expect(prepare).toHaveBeenCalledTimes(3);
    await all(); // prepared again
    expect(prepare).toHaveBeenCalledTimes(4);
  });

  it('never hands out a statement that is still being iterated', () => {
    sqlite = new SQLite(':memory:');
    sqlite.exec('create table notes (id integer primary key, body text not null); insert into notes (body) values (1), (2)');
    const database = withStatementCache(sqlite);
    const text = 'select id from notes order by id';
    const first = database.prepare(text);
    const rows = first.iterate([]);
    rows.next();
    const second = database.prepare(text);
    expect(second).not.toBe(first);
    expect(second.all([])).toEqual([{ id: 1 }, { id: 2 }]);
    expect([...rows]).toEqual([{ id: 2 }]);
  });
});

describe('the database handed to the rate limiter', () => {
  it('prepares its upsert once however many requests it counts, and counts every one', async () => {
    const { RateLimiterSQLite } = await import('rate-limiter-flexible');
    const { preparingOnce } = await import('@/lib/store/statement-cache');
    sqlite = new SQLite(':memory:');
    sqlite.exec('create table rate_limits (key text primary key, points integer not null default 0, expire integer)');
    const prepare = vi.spyOn(sqlite, 'prepare');
    const limiter = new RateLimiterSQLite({
      storeClient: preparingOnce(sqlite),
      storeType: 'better-sqlite3',
      tableName: 'rate_limits',
      tableCreated: true,
      clearExpiredByTimeout: false,
      points: 1_000,
      duration: 60,
    });
    for (let i = 1; i <= 20; i += 1) expect((await limiter.consume('token', 1)).consumedPoints).toBe(i);
    await limiter.reward('token', 5);
    expect((await limiter.get('token'))?.consumedPoints).toBe(15);
    const upserts = prepare.mock.calls.filter(([sql]) => /^\s*INSERT INTO rate_limits/i.test(sql));
    expect(upserts).toHaveLength(1);
  });
});
