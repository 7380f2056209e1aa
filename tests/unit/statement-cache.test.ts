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
