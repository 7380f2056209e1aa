import { spawn } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pollOnce, type FeedSettings } from '../lib/changes/poller';
import { sportsHealth } from '../lib/feed-health';
import { createPicksClient } from '../lib/picks-api/client';
import { claimFeedLease } from '../lib/store/change-feed';
import { openStore, type Store } from '../lib/store/open';
import type { StoreTarget } from '../lib/config/store';
import { freePort, startPostgres } from '../tests/support/postgres';
import { median, waitFor } from './support';
import { benchOptions, writeResult } from './options';

/**
 * `npm run bench:changes`: what one poll of the change feed costs with about 10,000 records in its window,
 * through the portal's own poller against the sandbox (its own process, so the CPU measured is the
 * portal's alone): upstream requests, wall time and portal CPU per poll, for the baseline, for polls
 * where nothing changed, and for polls after the sandbox's clock moved an hour; then the store's size
 * after the no-change polls against after the baseline (it must grow with changes, not with polls), and
 * what judging each sport's feed health after a poll costs (lib/feed-health, as the polling instance does).
 * On the embedded database and on PostgreSQL (Debian's, on loopback). --picks (75,000)
 * sizes the sandbox; --rounds (5) polls of each kind; medians.
 */

const options = benchOptions('bench:changes', 'One change-feed poll with about 10,000 watched records, on both engines.', {
  picks: { default: 75_000, help: "the sandbox's size" },
  rounds: { default: 5, help: 'polls of each kind (medians)' },
});
const PICKS = options.picks;
const ROUNDS = options.rounds;
const KEY = 'bench-changes-key-0123';
const settings: FeedSettings = { daysBack: 7, daysAhead: 14, pollMs: 300_000 };

async function startSandbox() {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/main.ts'], {
    env: {
      ...process.env,
      SANDBOX_PORT: String(port),
      SANDBOX_PICKS: String(PICKS),
      SANDBOX_RATE_LIMIT: '0',
      SANDBOX_TEST_HOOKS: '1',
      SANDBOX_NOW: new Date().toISOString(),
      SANDBOX_FULL_KEY: KEY,
    },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/api/v1/health`, { headers: { Authorization: `Bearer ${KEY}` } });
  return { url, stop: () => child.kill('SIGTERM') };
}

interface Sample {
  wallMs: number;
  cpuMs: number;
  requests: number;
  entries: number;
  watched: number;
}

async function measure(store: Store, url: string): Promise<Sample> {
  const client = createPicksClient({ baseUrl: url, apiKey: KEY });
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = await pollOnce({ db: store.db, walk: (filters, call) => client.walkPicks(filters, call), instance: 'bench', settings });
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  if (result.outcome !== 'complete') throw new Error(`poll ${result.outcome}: ${'error' in result ? result.error : ''}`);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, requests: result.requests, entries: result.entries, watched: result.watched };
}

const rows = async (store: Store) => {
  const count = async (table: 'changes' | 'watched') =>
    Number(
      (
        await store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { changes: await count('changes'), watched: await count('watched') };
};

function summary(label: string, samples: Sample[]) {
  const m = (pick: (s: Sample) => number) => Math.round(median(samples.map(pick)));
  return `${label.padEnd(26)} requests ${m((s) => s.requests)}  wall ${m((s) => s.wallMs)} ms  portal CPU ${m((s) => s.cpuMs)} ms  changes ${m((s) => s.entries)}  watched ${m((s) => s.watched)}`;
}

const results: Record<string, unknown> = {};

async function run(label: string, target: StoreTarget, sandboxUrl: string, size: () => number | null) {
  const store = await openStore(target);
  try {
    await claimFeedLease(store.db, 'bench', 86_400_000);
    console.log(`\n${label}`);
    const baseline = await measure(store, sandboxUrl);
    console.log(summary('baseline (first walk)', [baseline]));
    const afterBaseline = { ...(await rows(store)), bytes: size() };
    const quiet: Sample[] = [];
    for (let i = 0; i < ROUNDS; i += 1) quiet.push(await measure(store, sandboxUrl));
    console.log(summary('nothing changed', quiet));
    const afterQuiet = { ...(await rows(store)), bytes: size() };
    const moved: Sample[] = [];
    const health: { wallMs: number; cpuMs: number; sports: number }[] = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      await fetch(`${sandboxUrl}/__sandbox/clock`, { method: 'POST', body: JSON.stringify({ advanceMs: 3_600_000 }) });
      moved.push(await measure(store, sandboxUrl));
      const cpu = process.cpuUsage();
      const start = performance.now();
      const sports = await sportsHealth(store.db, settings.pollMs, { record: true, licence: null });
      const used = process.cpuUsage(cpu);
      health.push({ wallMs: performance.now() - start, cpuMs: (used.user + used.system) / 1000, sports: sports.length });
    }
    console.log(summary('clock moved 1 h each', moved));
    const healthWall = median(health.map((h) => h.wallMs));
    console.log(
      `${'feed health after a poll'.padEnd(26)} wall ${Math.round(healthWall)} ms  portal CPU ${Math.round(median(health.map((h) => h.cpuMs)))} ms  sports ${health[0]!.sports}  (${((100 * healthWall) / median(moved.map((m) => m.wallMs))).toFixed(1)} % of the poll's wall time)`,
    );
    const afterMoved = { ...(await rows(store)), bytes: size() };
    const show = (r: typeof afterBaseline) =>
      `${r.watched} watched rows, ${r.changes} change rows${r.bytes === null ? '' : `, file ${(r.bytes / 1024).toFixed(0)} KiB`}`;
    console.log(`store after the baseline:          ${show(afterBaseline)}`);
    console.log(`store after ${ROUNDS} no-change polls:     ${show(afterQuiet)}`);
    console.log(`store after ${ROUNDS} polls with changes:  ${show(afterMoved)}`);
    const medians = (samples: Sample[]) =>
      Object.fromEntries((Object.keys(samples[0]!) as (keyof Sample)[]).map((key) => [key, median(samples.map((s) => s[key]))]));
    results[label] = {
      baseline,
      quiet: medians(quiet),
      moved: medians(moved),
      health: { wallMs: healthWall, cpuMs: median(health.map((h) => h.cpuMs)) },
      afterBaseline,
      afterQuiet,
      afterMoved,
    };
  } finally {
    await store.close();
  }
}

const sandbox = await startSandbox();
try {
  console.log(
    `bench:changes: sandbox with ${PICKS.toLocaleString('en-GB')} picks; window ${settings.daysBack} days back, ${settings.daysAhead} ahead; medians of ${ROUNDS}`,
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-changes-'));
  const file = path.join(dir, 'portal.sqlite');
  const sqliteSize = () => ['', '-wal'].reduce((sum, suffix) => sum + (statSync(file + suffix, { throwIfNoEntry: false })?.size ?? 0), 0);
  await run('embedded database (SQLite)', { engine: 'sqlite', file, label: file }, sandbox.url, sqliteSize);
  await fetch(`${sandbox.url}/__sandbox/clock`, { method: 'POST', body: JSON.stringify({ now: new Date().toISOString() }) });
  const pg = await startPostgres();
  if (pg) {
    try {
      const url = await pg.createDatabase('bench_changes');
      await run('PostgreSQL (loopback)', { engine: 'postgres', url, label: 'PostgreSQL' }, sandbox.url, () => null);
    } finally {
      pg.destroy();
    }
  } else {
    console.log('\nPostgreSQL: not installed here, skipped (apt-get install postgresql)');
  }
  await writeResult('changes', results);
} finally {
  sandbox.stop();
}
