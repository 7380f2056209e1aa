import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { SchedulerContext } from '@/lib/deliveries/scheduler';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { lifecycleAt } from '@/sandbox/data';
import { deliveryMaker } from '../support/new-delivery';

/**
 * A table in the partner's own PostgreSQL (the real server the suite starts), read back with `pg`: a first run
 * loads the whole filtered set; after records are published, changed, settled and withdrawn in the sandbox (and a
 * poll of the change feed sees them) a run writes exactly those, the table then equal to a walk of the sandbox;
 * a run the database refuses half-way leaves the table and its sync log as they were, and the next run catches
 * up; the password stays with the server, database and user it was entered for; Test connection tries it.
 */

const HOUR = 3_600_000;
// The sandbox's clock runs ahead of the real one, which stamps what runs deliver: a poll's sighting is never older.
// Always noon (the sandbox's data sits at fixed hours of its anchor day), so the same records are published and
// settled in the hours the tests move through, whatever the time of day the suite runs.
const T0 = Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR + 60 * HOUR;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const KEY = 'sandbox-full-key';
const SECRET_KEY = 'a-test-delivery-secret-key-0123456789';
const FILTERS = { from: `${day(T0 - 24 * HOUR)}T00:00:00Z`, to: `${day(T0 + 48 * HOUR)}T00:00:00Z` };
const admin = inject('postgresUrl');
let sandbox: Sandbox;
let ctx: SchedulerContext;
let api: typeof import('@/lib/deliveries/scheduler');
let store: typeof import('@/lib/store/deliveries');
let check: typeof import('@/lib/deliveries/check');
let db: Awaited<ReturnType<(typeof import('@/lib/store'))['getStore']>>['db'];
let partner: pg.Client;
let connection = '';

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 3000 });
  const upstream = await sandbox.listen(0);
  const dir = await mkdtemp(path.join(tmpdir(), 'deliveries-pg-'));
  Object.assign(process.env, {
    DATABASE_URL: '',
    PORTAL_DATA_DIR: dir,
    PORTAL_USERS_FILE: path.join(dir, 'none.json'),
    PICKS_API_BASE_URL: upstream,
    PICKS_API_KEY: KEY,
    PICKS_API_MAX_RETRIES: '0',
    DELIVERY_ROOT: path.join(dir, 'out'),
    DELIVERY_SECRET_KEY: SECRET_KEY,
  });
  db = (await (await import('@/lib/store')).getStore()).db;
  api = await import('@/lib/deliveries/scheduler');
  store = await import('@/lib/store/deliveries');
  check = await import('@/lib/deliveries/check');
  ctx = { db, instance: 'a', settings: { root: path.join(dir, 'out'), secretKey: SECRET_KEY, allowPrivate: true } };
  // The partner's database and a user of their own, with a password.
  const name = `partner_${process.pid}`;
  const root = new pg.Client({ connectionString: admin! });
  await root.connect();
  await root.query(`create role ${name} login password 'pa55:w/rd'`);
  await root.query(`create database ${name} owner ${name}`);
  await root.end();
  const url = new URL(admin!);
  connection = `postgres://${name}:${encodeURIComponent('pa55:w/rd')}@127.0.0.1:${url.port}/${name}?sslmode=disable`;
  partner = new pg.Client({ connectionString: connection.replace('?sslmode=disable', '') });
  await partner.connect();
}, 60_000);
afterAll(async () => {
  await partner?.end();
  await (await import('@/lib/store')).closeStore();
  await sandbox?.close();
});

const newDelivery = deliveryMaker(
  () => db,
  (n) => ({ name: `Table ${n}`, kind: 'picks', format: 'jsonl', filters: FILTERS, destination: { type: 'directory', folder: 'unused' } }),
  { now: T0 },
);
const input = (destination: Record<string, unknown> = {}, rest: Record<string, unknown> = {}) => ({
  name: 'Into our warehouse',
  kind: 'picks',
  format: 'jsonl',
  filters: FILTERS,
  schedule: '0 * * * *',
  destination: { type: 'postgres', connection, schema: 'picks_feed', table: 'picks', ...destination },
  ...rest,
});

async function poll(at: number) {
  const { pollOnce } = await import('@/lib/changes/poller');
  const { claimFeedLease } = await import('@/lib/store/change-feed');
  const { picksApi } = await import('@/lib/picks-api');
  sandbox.controls.setNow(at);
  await claimFeedLease(db, 'a', 30 * 86_400_000, at);
  const settings = { daysBack: 2, daysAhead: 3, pollMs: 300_000 };
  const result = await pollOnce({ db, walk: (f, call) => picksApi().walkPicks(f, call), instance: 'a', settings, now: () => at });
  expect(result.outcome).toBe('complete');
}

/** What the sandbox serves now for the filters: id → the record. */
async function served(): Promise<Map<string, Record<string, unknown>>> {
  const { picksApi } = await import('@/lib/picks-api');
  const out = new Map<string, Record<string, unknown>>();
  for await (const record of picksApi().walkPicks(FILTERS)) out.set(record.id!, record as Record<string, unknown>);
  return out;
}

type Row = { id: string; _record: Record<string, unknown>; _deleted: boolean; _synced_at: Date } & Record<string, unknown>;
const table = async () => new Map((await partner.query<Row>('select * from picks_feed.picks')).rows.map((row) => [row.id, row]));
const stripNulls = (record: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(record, (_k, v: unknown) => (v === null ? undefined : v)));

/** The table's live rows are the records served, field for field; the rows no longer served are marked. */
function expectInStep(rows: Map<string, Row>, now: Map<string, Record<string, unknown>>) {
  const live = [...rows.values()].filter((row) => !row._deleted);
  expect(live.map((row) => row.id).sort()).toEqual([...now.keys()].sort());
  for (const row of live) expect(row._record).toEqual(stripNulls(now.get(row.id)!));
  for (const row of rows.values()) if (!now.has(row.id)) expect(row._deleted).toBe(true);
}

async function runOnce(id: string) {
  const delivery = (await store.findDelivery(db, id))!;
  await (
    await api.runNow(ctx, delivery)
  ).done;
  return (await store.listRuns(db, id))[0]!;
}

describe.skipIf(!admin)('a delivery to a table in the partner’s PostgreSQL', () => {
  let id = '';

  it('loads the whole filtered set on its first run, into typed columns', { timeout: 120_000 }, async () => {
    await poll(T0);
    const checked = await check.checkDelivery(input(), null, { allowPrivate: true, secretKey: SECRET_KEY, minIntervalMinutes: 1 });
    expect(checked.destination).toEqual({
      type: 'postgres',
      host: '127.0.0.1',
      port: Number(new URL(admin!).port),
      database: `partner_${process.pid}`,
      user: `partner_${process.pid}`,
      ssl: 'disable',
      schema: 'picks_feed',
      table: 'picks',
    });
    expect(JSON.stringify(checked.destination)).not.toContain('pa55');
    id = (await newDelivery({ destination: checked.destination, secret: checked.secret, filters: FILTERS })).id;
    const run = await runOnce(id);
    expect(run).toMatchObject({
      outcome: 'complete',
      error: null,
      file: expect.stringMatching(/^postgres:\/\/partner_\d+@127\.0\.0\.1:\d+\/partner_\d+ picks_feed\.picks$/),
    });
    const now = await served();
    expect(now.size).toBeGreaterThan(20);
    expect(run.table).toEqual({ mode: 'full', inserted: now.size, updated: 0, marked: 0 });
    expect(run.records).toBe(now.size);
    const rows = await table();
    expectInStep(rows, now);
    const types = new Map(
      (
        await partner.query<{ column_name: string; data_type: string }>(
          `select column_name, data_type from information_schema.columns where table_schema = 'picks_feed' and table_name = 'picks'`,
        )
      ).rows.map((r) => [r.column_name, r.data_type]),
    );
    expect(
      Object.fromEntries(
        ['id', 'event_date', 'odds', 'probability', 'is_player_pick', 'event_metadata', 'line', '_deleted', '_synced_at'].map((c) => [
          c,
          types.get(c),
        ]),
      ),
    ).toEqual({
      id: 'text',
      event_date: 'timestamp with time zone',
      odds: 'double precision',
      probability: 'double precision',
      is_player_pick: 'boolean',
      event_metadata: 'jsonb',
      line: 'text',
      _deleted: 'boolean',
      _synced_at: 'timestamp with time zone',
    });
    const [one] = [...rows.values()];
    expect(one!.event_date).toEqual(new Date(String(one!._record.eventDate)));
    expect(one!.odds).toBe(one!._record.odds ?? null);
    const log = (await partner.query('select * from picks_feed.picks_syncs')).rows;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ run_id: run.id, mode: 'full', records: now.size, inserted: now.size, sha256: run.sha256 });
    expect(log[0].manifest).toMatchObject({ run: run.id, table: run.file, records: now.size, inserted: now.size, mode: 'full' });
    expect(JSON.parse(Buffer.from(String(log[0].jws).split('.')[1]!, 'base64url').toString('utf8'))).toEqual(log[0].manifest);
  });

  it('writes only what changed after records are published, changed, settled and withdrawn, and is then equal to the upstream', async () => {
    const before = await served();
    const T1 = T0 + 6 * HOUR;
    const kept = [...before.keys()];
    const withdrawn = kept[0]!;
    const edited = kept[1]!;
    sandbox.controls.retracted.add(withdrawn);
    sandbox.controls.edits.set(edited, { fields: { reasoning: 'Changed by the test.' }, atMs: T1 });
    await poll(T1);
    const now = await served();
    const settledNow = sandbox.records.filter(
      (r) => now.has(r.id) && lifecycleAt(r, T1).status === 'settled' && lifecycleAt(r, T0).status !== 'settled',
    );
    const published = [...now.keys()].filter((k) => !before.has(k));
    expect(settledNow.length).toBeGreaterThan(0);
    expect(published.length).toBeGreaterThan(0);
    const changed = [...now.keys()].filter((k) => before.has(k) && JSON.stringify(before.get(k)) !== JSON.stringify(now.get(k)));
    expect(changed).toContain(edited);
    const run = await runOnce(id);
    expect(run).toMatchObject({ outcome: 'complete', error: null });
    expect(run.table).toEqual({ mode: 'changes', inserted: published.length, updated: changed.length, marked: 1 });
    const rows = await table();
    expectInStep(rows, now);
    expect(rows.get(withdrawn)).toMatchObject({ _deleted: true });
    expect(rows.get(edited)!._record.reasoning).toBe('Changed by the test.');
    // Rows the run did not touch keep the first run's time.
    const untouched = kept.find((k) => k !== edited && !changed.includes(k) && k !== withdrawn)!;
    expect(rows.get(untouched)!._synced_at.getTime()).toBeLessThan(rows.get(edited)!._synced_at.getTime());
    // Nothing new since: a run writes nothing.
    const idle = await runOnce(id);
    expect(idle.table).toEqual({ mode: 'changes', inserted: 0, updated: 0, marked: 0 });
  });

  it('leaves the table and its sync log as they were when the database refuses half-way, and the next run catches up', async () => {
    const T2 = T0 + 8 * HOUR;
    const prior = await served();
    const [first, second] = [...prior.keys()];
    for (const k of [first!, second!]) sandbox.controls.edits.set(k, { fields: { reasoning: `Again ${k}` }, atMs: T2 });
    await poll(T2);
    const now = await served();
    const expected = {
      mode: 'changes',
      inserted: [...now.keys()].filter((k) => !prior.has(k)).length,
      updated: [...now.keys()].filter((k) => prior.has(k) && JSON.stringify(prior.get(k)) !== JSON.stringify(now.get(k))).length,
      marked: [...prior.keys()].filter((k) => !now.has(k)).length,
    };
    expect(expected.updated).toBeGreaterThanOrEqual(2);
    await partner.query(
      `create function picks_refuse() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`,
    );
    await partner.query(
      `create trigger refuse before update on picks_feed.picks for each row when (new.id = '${second}') execute function picks_refuse()`,
    );
    const snapshot = async () =>
      (await partner.query('select * from picks_feed.picks order by id')).rows.concat(
        (await partner.query('select run_id from picks_feed.picks_syncs order by run_id')).rows,
      );
    const before = await snapshot();
    const failed = await runOnce(id);
    expect(failed.outcome).toBe('failed');
    expect(failed.error).toMatch(/^DELIVERY_FAILED: The table was left as it was: refused by the test \(SQLSTATE P0001\)/);
    expect(await snapshot()).toEqual(before);
    await partner.query('drop trigger refuse on picks_feed.picks');
    const caught = await runOnce(id);
    expect(caught).toMatchObject({ outcome: 'complete' });
    expect(caught.table).toEqual(expected);
    expectInStep(await table(), now);
  });

  it('loads the whole set again when the table is made afresh', async () => {
    await partner.query('drop table picks_feed.picks');
    const run = await runOnce(id);
    const now = await served();
    expect(run.table).toEqual({ mode: 'full', inserted: now.size, updated: 0, marked: 0 });
    expectInStep(await table(), now);
  });

  it('abandons its COPY and rolls back when its own work fails half-way, leaving the table and the connection usable', async () => {
    const { syncInTransaction } = await import('@/lib/deliveries/pg-table');
    const { copyLine } = await import('@/lib/deliveries/pg-columns');
    const client = new pg.Client({ connectionString: connection.replace('?sslmode=disable', '') });
    await client.connect();
    try {
      const before = (await client.query('select count(*)::int as n from picks_feed.picks')).rows[0].n;
      const d = { host: '127.0.0.1', port: 0, database: '', user: '', ssl: 'disable' as const, schema: 'picks_feed', table: 'picks' };
      const failed = await syncInTransaction(
        client,
        d,
        'dlv_other',
        null,
        'full',
        new Date(),
        async (writer) => {
          await writer.stage([{ id: 'x1', line: copyLine({ id: 'x1', sport: 'Tennis' }, '{"id":"x1","sport":"Tennis"}', 'v1') }]);
          throw new Error('the store went away');
        },
        async () => ({ manifest: Buffer.from('{}'), jws: 'x.y.z' }),
      ).catch((error: Error) => error);
      expect((failed as Error).message).toBe('The table was left as it was: the store went away.');
      expect((await client.query('select count(*)::int as n from picks_feed.picks')).rows[0].n).toBe(before);
      expect((await client.query(`select count(*)::int as n from picks_feed.picks where id = 'x1'`)).rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('tests the connection, and keeps the password with the server, database, user, sslmode and table it was entered for', async () => {
    const { probeDelivery } = await import('@/lib/deliveries/probe');
    const delivery = (await store.findDelivery(db, id))!;
    const tried = await probeDelivery(delivery, { allowPrivate: true, secretKey: SECRET_KEY });
    expect(tried.steps.map((s) => [s.step, s.ok])).toEqual([
      ['address', true],
      ['connect', true],
      ['table', true],
    ]);
    expect(tried.steps[2]!.detail).toMatch(/^picks_feed\.picks is there \(about \d+ rows\) and may be written$/);
    // A closed port and a port open to something else read alike, naming only the host and port as typed.
    const secrets = await import('@/lib/deliveries/secrets');
    const plain = secrets.openSecret(delivery.secret!, SECRET_KEY, secrets.secretBinding(delivery.destination));
    const net = await import('node:net');
    const other = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const elsewhere = async (port: number) => {
      const destination = { ...delivery.destination, port };
      const moved = { ...delivery, destination, secret: secrets.sealSecret(plain, SECRET_KEY, secrets.secretBinding(destination)!) };
      return (await probeDelivery(moved, { allowPrivate: true, secretKey: SECRET_KEY })).steps;
    };
    const otherPort = (other.address() as { port: number }).port;
    for (const [port, steps] of [
      [closedPort, await elsewhere(closedPort)],
      [otherPort, await elsewhere(otherPort)],
    ] as const) {
      expect(steps.map((s) => [s.step, s.ok])).toEqual([
        ['address', true],
        ['connect', false],
      ]);
      expect(steps[1]!.detail).toBe(
        `could not connect to 127.0.0.1:${port}: nothing there answered as a PostgreSQL server in time. Check the host and port, and that this portal may reach them`,
      );
    }
    other.close();
    const context = { allowPrivate: true, secretKey: SECRET_KEY, minIntervalMinutes: 1 };
    const bare = connection.replace(/:[^:@/]+@/, '@');
    const kept = await check.checkDelivery(input({ connection: bare }), delivery, context);
    expect(kept.secret).toBe(delivery.secret);
    // Paused or renamed without the password: the stored destination as the form gives it keeps the secret.
    const { destinationAsGiven } = await import('@/lib/deliveries/pg-connection');
    const given = destinationAsGiven(delivery.destination) as unknown as { connection: string; schema: string; table: string };
    expect(given.connection).not.toContain(':' + new URL(connection).password);
    const paused = await check.checkDelivery(input({ connection: given.connection }), delivery, context);
    expect(paused.secret).toBe(delivery.secret);
    // Another server, database or user; a weaker sslmode; another schema or table: the password is asked again.
    for (const moved of [
      { connection: bare.replace(/\/partner_\d+\?/, '/postgres?') },
      { connection: bare.replace('127.0.0.1', 'localhost') },
      { connection: bare.replace(/\/\/partner_\d+@/, '//postgres@') },
      { connection: bare.replace('sslmode=disable', 'sslmode=require') },
      { connection: bare, table: 'other' },
      { connection: bare, schema: 'public' },
    ]) {
      const refused = await check.checkDelivery(input(moved), delivery, context).catch((e: { details: Record<string, string> }) => e);
      expect((refused as { details: Record<string, string> }).details['destination.connection']).toMatch(
        /^must be entered again: the saved one belongs to postgres:\/\/partner_/,
      );
    }
    const strict = { ...context, allowPrivate: false };
    const refused = await check
      .checkDelivery(input({}, { kind: 'results', format: 'csv', filters: { from: 'today-7d' }, corrections: true }), null, strict)
      .catch((e: { details: Record<string, string> }) => e);
    expect((refused as { details: Record<string, string> }).details).toEqual({
      'destination.connection': 'sslmode=disable would send the password in the clear: use verify-full or require',
      kind: 'must be picks for a table: its rows carry their results as they settle, and each run writes what changed',
      format: 'must be jsonl for a table: the rows are written, and the manifest names the JSON Lines of the records loaded',
      corrections: 'are not for a table: each run already writes what changed',
      'filters.from': 'must be a fixed date for a table (a moving window would drop and add rows that did not change)',
    });
    const loopback = await check
      .checkDelivery(input({ connection: connection.replace('?sslmode=disable', '') }), null, strict)
      .catch((e: { details: Record<string, string> }) => e);
    expect((loopback as { details: Record<string, string> }).details['destination.connection']).toMatch(
      /^names a server that cannot be used: 127\.0\.0\.1 is not on the public internet/,
    );
    // A password sealed before sslmode, schema and table were bound is bound to them once, at start.
    const { bindOlderPostgresSecrets } = await import('@/lib/deliveries/start');
    await store.updateDelivery(db, id, {
      secret: secrets.sealSecret(plain, SECRET_KEY, secrets.olderPostgresBinding(delivery.destination)),
    });
    expect(await bindOlderPostgresSecrets(db, SECRET_KEY)).toBe(1);
    expect(await bindOlderPostgresSecrets(db, SECRET_KEY)).toBe(0);
    const rebound = (await store.findDelivery(db, id))!;
    expect(secrets.openSecret(rebound.secret!, SECRET_KEY, secrets.secretBinding(rebound.destination))).toBe(plain);
  });
});
