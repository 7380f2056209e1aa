import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { isRole } from '@/lib/vocabulary/roles';
import { importUsersFile } from '@/lib/store/import-users';
import { openStore, StoreError, type Store } from '@/lib/store/open';
import { postgresKysely, sqliteKysely } from '@/lib/store/connect';
import { MIGRATION_NAMES } from '@/lib/store/migrations';
import { parseStoreSettings, storeTarget } from '@/lib/config/store';
import * as users from '@/lib/store/users';
import { freePort } from '../support/postgres';
import { storeEngines } from '../support/store-engines';
import { writeUsersFile } from '../support/users-file';

/** Opening the store: settings, migrations, a newer or damaged database, an unreachable server, the users file import. */

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

describe('store settings', () => {
  it('default to the embedded database in PORTAL_DATA_DIR', () => {
    const target = storeTarget(parseStoreSettings({ PORTAL_DATA_DIR: '/srv/portal' }));
    expect(target).toMatchObject({ engine: 'sqlite', file: '/srv/portal/portal.sqlite' });
    expect(storeTarget(parseStoreSettings({ DATABASE_URL: '', PORTAL_DATA_DIR: '' }))).toMatchObject({ engine: 'sqlite' });
  });

  it('name DATABASE_URL when it is malformed, and never show its password', () => {
    expect(() => parseStoreSettings({ DATABASE_URL: 'not a url' })).toThrow(/^DATABASE_URL must be a URL/);
    expect(() => parseStoreSettings({ DATABASE_URL: 'mysql://db/portal' })).toThrow(/^DATABASE_URL must start with postgres:\/\//);
    const target = storeTarget(parseStoreSettings({ DATABASE_URL: 'postgres://portal:s3cret@db.internal:6432/portal' }));
    expect(target).toMatchObject({ engine: 'postgres', label: 'PostgreSQL at db.internal:6432/portal' });
    expect(target.label).not.toContain('s3cret');
  });
});

describe.each(storeEngines())('opening the store on $name', (engine) => {
  it('applies the migrations once, and opens again without change', async () => {
    const target = await engine.fresh();
    const first = await openStore(target);
    await users.putUser(first.db, { email: 'ana@example.com', role: 'admin', passwordHash: 'scrypt$a' });
    await first.close();
    const again = await openStore(target);
    opened.push(again);
    expect((await users.listUsers(again.db)).map((user) => user.email)).toEqual(['ana@example.com']);
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(again.db);
    expect(applied.rows.map((row) => row.name)).toEqual([
      '0001_state',
      '0002_audit',
      '0003_changes',
      '0004_deliveries',
      '0005_security_review',
      '0006_walks',
      '0007_preferences',
      '0008_feed_health',
      '0009_alerts',
      '0010_alert_channels',
      '0011_proof',
      '0012_run_licence',
      '0013_history',
      '0014_tokens',
      '0015_history_heads',
      '0016_token_owner_since',
      '0017_key_compromised',
      '0018_oidc_subject',
      '0019_jobs',
      '0020_delivered_by_record',
      '0021_events',
      '0022_event_checkpoints',
      '0023_token_webhooks',
      '0024_history_writes',
      '0025_webhook_confirmation',
      '0026_audit_sealed_rows',
      '0027_record_index',
      '0028_request_logs',
      '0029_token_roll',
    ]);
  });

  it('is brought up to date once when several open a fresh one at the same moment, in this process and in others', async () => {
    const applied = async (store: Store) =>
      (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db)).rows.map((row) => row.name);
    // In this process: the opens' queries interleave at every await.
    const here = await engine.fresh();
    const stores = await Promise.all([openStore(here), openStore(here), openStore(here)]);
    opened.push(...stores);
    expect(await applied(stores[2]!)).toEqual(MIGRATION_NAMES);
    // In three other processes started together (the portal, `npm run export` and a worker on a fresh install).
    const there = await engine.fresh();
    const startAt = Date.now() + 2_500; // after each has loaded its modules
    const outputs = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<string>((resolve) =>
            execFile(
              process.execPath,
              ['--import', 'tsx', 'tests/support/open-store-child.ts'],
              { env: { ...process.env, OPEN_TARGET: JSON.stringify(there), START_AT: String(startAt) }, timeout: 30_000 },
              (_error, stdout, stderr) => resolve(`${stdout}${stderr}`.trim()),
            ),
          ),
      ),
    );
    expect(outputs, outputs.join(' | ')).toEqual(['opened', 'opened', 'opened']);
    const after = await openStore(there);
    opened.push(after);
    expect(await applied(after)).toEqual(MIGRATION_NAMES);
  });

  it('leaves a store as it was when a migration fails part of the way, and takes it up again once the cause is gone', async () => {
    const target = await engine.fresh();
    // Someone's table where a late migration (0023) makes one: the 22 before it succeed, then 0023 fails.
    const raw = async (statement: string) => {
      if (target.engine === 'sqlite') return void new SQLite(target.file).exec(statement).close();
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      await client.query(statement).finally(() => client.end());
    };
    await raw('create table token_webhooks (note text)');
    const error = await openStore(target).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(/schema could not be brought up to date \(.*token_webhooks.*already exists/);
    // Nothing of the 22 is left: the next start begins from the same place, not from a half-made schema.
    const look = await openStore(target).catch(() => null); // fails the same way
    expect(look).toBeNull();
    const tables = async () => {
      const db =
        target.engine === 'sqlite' ? sqliteKysely(new SQLite(target.file)) : postgresKysely(new pg.Pool({ connectionString: target.url }));
      const names = (await db.introspection.getTables()).map((table) => table.name);
      await db.destroy();
      return names;
    };
    expect(await tables()).toEqual(['token_webhooks']);
    await raw('drop table token_webhooks');
    const store = await openStore(target);
    opened.push(store);
    expect(
      (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db)).rows.map((row) => row.name),
    ).toEqual(MIGRATION_NAMES);
  });

  it('refuses a database a newer release brought to a schema it cannot use, naming the migration', async () => {
    const target = await engine.fresh();
    const store = await openStore(target);
    // A newer release's breaking migration: it marks the schema readable only by releases that know it.
    await sql`insert into kysely_migration (name, timestamp) values ('0099_future', '2027-01-01T00:00:00.000Z')`.execute(store.db);
    await sql`update meta set value = '0099_future' where key = 'schema.readable-by'`.execute(store.db);
    await store.close();
    await expect(openStore(target)).rejects.toThrow(/newer schema \(0099_future\) by a newer version of the portal/);
  });

  it('works on a schema a newer release migrated additively (a rolling upgrade), and says so', async () => {
    const target = await engine.fresh();
    const store = await openStore(target);
    expect((await sql<{ value: string }>`select value from meta where key = 'schema.readable-by'`.execute(store.db)).rows).toEqual([
      { value: '0001_state' },
    ]);
    // What a newer release's additive migration leaves: a new table and a new nullable column, the marker unchanged.
    await sql`insert into kysely_migration (name, timestamp) values ('0099_future', '2027-01-01T00:00:00.000Z')`.execute(store.db);
    await store.db.schema
      .createTable('future_things')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .execute();
    await store.db.schema.alterTable('users').addColumn('future_note', 'text').execute();
    await store.close();
    const lines: string[] = [];
    const older = await openStore(target, { log: (line) => lines.push(line) });
    opened.push(older);
    expect(lines.join('\n')).toMatch(/newer additive migrations \(0099_future\): this version works with it/);
    await users.putUser(older.db, { email: 'rolling@example.com', role: 'editor', passwordHash: 'scrypt$x' });
    expect(await users.findUser(older.db, 'rolling@example.com')).toMatchObject({ role: 'editor' });
    // It leaves the newer schema as it is: nothing migrated back, the marker untouched.
    expect(
      (await sql<{ n: number }>`select count(*) as n from kysely_migration where name = '0099_future'`.execute(older.db)).rows[0],
    ).toEqual({
      n: 1,
    });
  });

  it('imports a users file once per machine and path, adding only absent accounts, keeping flags', async () => {
    const target = await engine.fresh();
    const store = await openStore(target);
    opened.push(store);
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'users-file-')), 'users.json');
    await users.putUser(store.db, { email: 'kept@example.com', role: 'viewer', passwordHash: 'scrypt$kept' });
    await writeUsersFile(file, [
      { email: 'Kept@Example.com', role: 'admin', password: 'whatever-long' },
      { email: 'new@example.com', role: 'editor', password: 'whatever-long', disabled: true },
      { email: 'viewer@demo.picks.test', role: 'viewer', password: 'demo-viewer-pass', demo: true },
    ]);
    expect(await importUsersFile(store.db, file, isRole)).toEqual({ kind: 'imported', added: 2, skipped: 1 });
    expect(await users.findUser(store.db, 'kept@example.com')).toMatchObject({ role: 'viewer', passwordHash: 'scrypt$kept' });
    expect(await users.findUser(store.db, 'new@example.com')).toMatchObject({ role: 'editor', disabled: true, demo: false });
    expect(await users.findUser(store.db, 'viewer@demo.picks.test')).toMatchObject({ demo: true });
    await users.removeUser(store.db, 'new@example.com');
    const before = await readFile(file, 'utf8');
    expect(await importUsersFile(store.db, file, isRole)).toMatchObject({ kind: 'already', changed: false });
    expect(await users.findUser(store.db, 'new@example.com')).toBeUndefined(); // not brought back
    expect(await readFile(file, 'utf8')).toBe(before); // left untouched
    await writeUsersFile(file, [{ email: 'later@example.com', role: 'admin', password: 'whatever-long' }]);
    expect(await importUsersFile(store.db, file, isRole)).toMatchObject({ kind: 'already', changed: true });
    expect(await users.findUser(store.db, 'later@example.com')).toBeUndefined();
  });

  it('refuses a users file that is not one, importing nothing', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'users-file-')), 'users.json');
    await writeFile(file, '{"users":[{"email":"a@b.io"}]}');
    await expect(importUsersFile(store.db, file, isRole)).rejects.toThrow(/is not a valid users file/);
    expect(await users.listUsers(store.db)).toEqual([]);
  });
});

describe('a store that cannot be opened', () => {
  it('reports a damaged embedded database with its path and leaves the file as it was', async () => {
    const target = await storeEngines()[0]!.fresh();
    if (target.engine !== 'sqlite') throw new Error('unexpected');
    const garbage = Buffer.from('this is not an SQLite database, but it is somebody’s data '.repeat(200));
    await writeFile(target.file, garbage);
    const error = await openStore(target).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toContain(target.file);
    expect((error as Error).message).toMatch(/is damaged .* It was left as it is/);
    expect(Buffer.compare(await readFile(target.file), garbage)).toBe(0);
  });

  it('says PostgreSQL cannot be reached, retrying with backoff before giving up', async () => {
    const port = await freePort(); // nobody listens there
    const lines: string[] = [];
    const target = {
      engine: 'postgres' as const,
      url: `postgres://portal:pw@127.0.0.1:${port}/portal`,
      label: `PostgreSQL at 127.0.0.1:${port}/portal`,
    };
    const error = await openStore(target, { attempts: 3, log: (line) => lines.push(line) }).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(
      `PostgreSQL at 127.0.0.1:${port}/portal cannot be reached (connect ECONNREFUSED 127.0.0.1:${port}).`,
    );
    expect(lines).toEqual([
      expect.stringMatching(/cannot be reached \(connect ECONNREFUSED .*\): trying again in 0.5 s$/),
      expect.stringMatching(/trying again in 1 s$/),
    ]);
    expect(lines.join('\n')).not.toContain('pw@');
  });
});
