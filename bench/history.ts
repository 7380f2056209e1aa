import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { pollOnce, windowAt, type FeedSettings } from '../lib/changes/poller';
import { momentStream } from '../lib/history/files';
import { reconcile } from '../lib/history/reconcile';
import { createPicksClient } from '../lib/picks-api/client';
import { summariseLicence } from '../lib/picks-api/licence';
import { startProof } from '../lib/proof/file-proof';
import { claimFeedLease } from '../lib/store/change-feed';
import { openDeliveredFile, recordDelivered, updateDeliveredFile, findDeliveredFile } from '../lib/store/delivered';
import { eachVersionAt } from '../lib/store/history-at';
import { openStore, type Store } from '../lib/store/open';
import type { StoreTarget } from '../lib/config/store';
import { freePort, startPostgres } from '../tests/support/postgres';
import { benchOptions, writeResult } from './options';
import { asThePortalRuns, median, waitFor } from './support';

/**
 * `npm run bench:history`: record history on both engines. The portal's poller walks the sandbox (its own
 * process) once a simulated day for 30 days — the clock moves a day, and each day the sandbox edits odds,
 * corrects results and withdraws a few records as a real feed would — then: the store's size per watched
 * record; the time to stream the set of about 40,000 records at a moment from the store, against a raw walk
 * (fetch and JSON.parse) of the same records from an instant upstream (bench/replay.ts); and the time to
 * reconcile a 40,000-record delivery made on the first day. --picks sizes the sandbox; --days; --rounds. The
 * history is read in this process as the portal's server reads it, with its V8 arguments (asThePortalRuns).
 */

await asThePortalRuns();
const options = benchOptions('bench:history', 'Record history: storage after 30 days, a point-in-time set, a reconcile; both engines.', {
  picks: { default: 55_000, help: "the sandbox's size (55,000: about 40,000 licensed records)" },
  days: { default: 30, help: 'simulated days of polls' },
  rounds: { default: 5, help: 'rounds of each timing (medians)' },
});
const KEY = 'bench-history-key-0123';
// A window wide enough that every record the sandbox holds is watched, as in a feed watching its whole set.
const settings: FeedSettings = { daysBack: 400, daysAhead: 400, pollMs: 300_000 };
const DAY = 86_400_000;

function child(script: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: 'ignore' });
}

async function startUpstreams() {
  const [port, replayPort] = [await freePort(), await freePort()];
  const now = new Date().toISOString();
  const sandbox = child('sandbox/main.ts', {
    SANDBOX_PORT: String(port),
    SANDBOX_PICKS: String(options.picks),
    SANDBOX_RATE_LIMIT: '0',
    SANDBOX_TEST_HOOKS: '1',
    SANDBOX_NOW: now,
    SANDBOX_FULL_KEY: KEY,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/api/v1/health`, { headers: { Authorization: `Bearer ${KEY}` } });
  const replay = child('bench/replay.ts', { REPLAY_TARGET: url, REPLAY_PORT: String(replayPort), REPLAY_DELAY_MS: '0' });
  const replayUrl = `http://127.0.0.1:${replayPort}`;
  await waitFor(`${replayUrl}/api/v1/health`, { headers: { Authorization: `Bearer ${KEY}` } });
  return { url, replayUrl, startMs: Date.parse(now), stop: () => [sandbox, replay].forEach((c) => c.kill('SIGTERM')) };
}

const hook = (url: string, name: string, body: unknown) =>
  fetch(`${url}/__sandbox/${name}`, { method: 'POST', body: JSON.stringify(body) });

/** A raw walk of the window from the instant upstream: fetch and JSON.parse of every page. */
async function rawWalk(url: string, window: { from: string; to: string }): Promise<{ ms: number; records: number }> {
  const start = performance.now();
  let cursor: string | null = null;
  let records = 0;
  do {
    const query = new URLSearchParams({ from: window.from, to: window.to, limit: '200', ...(cursor ? { cursor } : {}) });
    const body = (await (await fetch(`${url}/api/v1/picks?${query}`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as {
      data: unknown[];
      page: { nextCursor: string | null; hasMore: boolean };
    };
    records += body.data.length;
    cursor = body.page.hasMore ? body.page.nextCursor : null;
  } while (cursor);
  return { ms: performance.now() - start, records };
}

const HISTORY_TABLES = ['record_bodies', 'record_versions', 'record_heads', 'delivered_versions', 'delivered_state', 'delivered_files'];

/** The history's own tables and their indexes (not the change feed's or anything else the store holds). */
async function storeBytes(store: Store, file: string | null): Promise<number> {
  const tables = HISTORY_TABLES;
  if (file) {
    const { rows } = await sql<{
      n: number;
    }>`select sum(pgsize) as n from dbstat where name in (select name from sqlite_schema where tbl_name in (${sql.join(tables)}))`.execute(
      store.db,
    );
    return Number(rows[0]?.n ?? 0);
  }
  const { rows } = await sql<{
    n: string;
  }>`select sum(pg_total_relation_size(t::regclass))::text as n from unnest(${tables}::text[]) as t`.execute(store.db);
  return Number(rows[0]?.n ?? 0);
}

async function run(label: string, target: StoreTarget, file: string | null, up: Awaited<ReturnType<typeof startUpstreams>>) {
  const store = await openStore(target);
  const client = createPicksClient({ baseUrl: up.url, apiKey: KEY });
  let now = up.startMs;
  const poll = async () => {
    const result = await pollOnce({
      db: store.db,
      walk: (f, call) => client.walkPicks(f, call),
      instance: 'bench',
      settings,
      now: () => now,
    });
    if (result.outcome !== 'complete') throw new Error(`poll ${result.outcome}`);
    return result;
  };
  try {
    await claimFeedLease(store.db, 'bench', 1000 * DAY, now);
    await hook(up.url, 'clock', { now: new Date(now).toISOString() });
    const first = await poll();
    // The first day's set, delivered: what reconciling a 40,000-record delivery reads.
    await openDeliveredFile(store.db, { id: 'run_bench', kind: 'run', actor: 'bench', deliveryId: 'dlv_bench', atMs: now });
    for await (const batch of eachVersionAt(store.db, now, {}))
      await recordDelivered(
        store.db,
        'run_bench',
        batch.map((v) => ({ id: v.pickId, digest: v.digest })),
        now,
        'dlv_bench',
      );
    await updateDeliveredFile(store.db, 'run_bench', { kept: 'kept', records: first.watched });
    const afterFirst = await storeBytes(store, file);
    const pollMs: number[] = [];
    const ids = (await store.db.selectFrom('record_heads').select('pick_id').orderBy('pick_id').execute()).map((r) => r.pick_id);
    for (let day = 1; day <= options.days; day += 1) {
      now += DAY;
      await hook(up.url, 'clock', { now: new Date(now).toISOString() });
      // A day's edits: 1 % of records get new odds, 0.2 % a corrected result, 0.1 % withdrawn (yesterday's come back).
      const pick = (share: number, salt: number) => ids.filter((_, i) => (i * 7919 + day * 104_729 + salt) % Math.round(1 / share) === 0);
      for (const id of pick(0.01, 1)) await hook(up.url, 'edit', { id, fields: { odds: 1 + ((day * 37) % 90) / 10 } });
      for (const id of pick(0.002, 2)) await hook(up.url, 'edit', { id, fields: { result: day % 2 ? 'loss' : 'win' } });
      await hook(up.url, 'restore', { ids: pick(0.001, 3 + day - 1) });
      await hook(up.url, 'retract', { ids: pick(0.001, 3 + day) });
      const start = performance.now();
      await poll();
      pollMs.push(performance.now() - start);
    }
    const watched = Number(
      (
        await store.db
          .selectFrom('watched')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const versions = Number(
      (
        await store.db
          .selectFrom('record_versions')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const bytes = await storeBytes(store, file);

    // The store as it is between two polls: thirty of them in a couple of minutes leave PostgreSQL's autovacuum
    // and SQLite's checkpoints behind, work a store five minutes between polls has done before anyone asks.
    if (file) await sql`pragma wal_checkpoint(truncate)`.execute(store.db);
    else await sql`vacuum (analyze) record_heads, record_versions, record_bodies`.execute(store.db);
    // The set at the last poll, streamed from the store as GET /api/history writes it, against a raw walk of the same.
    const window = windowAt(now, settings);
    await rawWalk(up.replayUrl, window); // fills the replay's memory
    const pit: number[] = [];
    const raw: number[] = [];
    let pitRecords = 0;
    let rawRecords = 0;
    for (let round = 0; round < options.rounds; round += 1) {
      const start = performance.now();
      // With the licence attestation the route writes into the file's manifest, checked against /me as read now.
      const me = await client.me();
      const proof = startProof({ summary: summariseLicence(me), document: me, readAt: new Date().toISOString() }, { ...window });
      const stream = await momentStream(
        store.db,
        now,
        { from: window.from, to: window.to },
        'json',
        {},
        { proof, onCount: (n) => (pitRecords = n) },
      );
      for await (const _chunk of stream as unknown as AsyncIterable<Uint8Array>) void _chunk;
      pit.push(performance.now() - start);
      const walked = await rawWalk(up.replayUrl, window);
      raw.push(walked.ms);
      rawRecords = walked.records;
    }
    const file0 = (await findDeliveredFile(store.db, 'run_bench'))!;
    const rec: number[] = [];
    let changed = 0;
    for (let round = 0; round < options.rounds; round += 1) {
      const start = performance.now();
      changed = (await reconcile(store.db, file0)).changed.length;
      rec.push(performance.now() - start);
    }
    const result = {
      watched,
      versions,
      bytesAfterFirstPoll: afterFirst,
      bytes,
      bytesPerWatched: Math.round(bytes / watched),
      pollMs: median(pollMs),
      pointInTime: { records: pitRecords, ms: median(pit), rawWalkMs: median(raw), rawRecords, ratio: median(pit) / median(raw) },
      reconcile: { records: first.watched, changed, ms: median(rec) },
    };
    console.log(`\n${label}`);
    console.log(
      `  after ${options.days} days: ${watched} watched, ${versions} versions; ${(bytes / 1024 / 1024).toFixed(1)} MiB (${result.bytesPerWatched} B per watched record; ${(afterFirst / 1024 / 1024).toFixed(1)} MiB after the first poll); a day's poll ${Math.round(result.pollMs)} ms`,
    );
    console.log(
      `  point in time: ${pitRecords} records in ${Math.round(median(pit))} ms; raw walk of ${rawRecords} from an instant upstream ${Math.round(median(raw))} ms (${result.pointInTime.ratio.toFixed(2)}×)`,
    );
    console.log(`  reconcile a ${first.watched}-record delivery: ${changed} changed, ${Math.round(median(rec))} ms`);
    return result;
  } finally {
    await store.close();
  }
}

const up = await startUpstreams();
const results: Record<string, unknown> = { picks: options.picks, days: options.days, rounds: options.rounds };
try {
  console.log(
    `bench:history: sandbox with ${options.picks.toLocaleString('en-GB')} picks, ${options.days} simulated days, medians of ${options.rounds}`,
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-history-'));
  const file = path.join(dir, 'portal.sqlite');
  results.sqlite = await run('embedded database (SQLite)', { engine: 'sqlite', file, label: file }, file, up);
  const pg = await startPostgres();
  if (pg) {
    try {
      const url = await pg.createDatabase('bench_history');
      results.postgres = await run('PostgreSQL (loopback)', { engine: 'postgres', url, label: 'PostgreSQL' }, null, up);
    } finally {
      pg.destroy();
    }
  } else console.log('\nPostgreSQL: not installed here, skipped (apt-get install postgresql)');
  await writeResult('history', results);
} finally {
  up.stop();
}
