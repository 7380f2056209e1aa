import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { freePort, startPostgres } from '../tests/support/postgres';
import { benchOptions, writeResult } from './options';
import { asThePortalRuns, median, waitFor } from './support';

/**
 * `npm run bench:table`: a table delivery into PostgreSQL after a day of changes, against writing the same changes
 * to a CSV file, in alternating rounds of one run. The sandbox (its own process, --picks 55,000: about 40,000
 * licensed records) is polled with a window wide enough to watch every record; a first run loads the whole set
 * into a table on a PostgreSQL the bench starts; then the clock moves a day, with a day's odds edits, corrected
 * results and withdrawals, and the feed polls again. Each round then times (a) the table run — connection, the
 * moved records read from the record history, staged, merged, marked, the signed sync row, the commit — with the
 * table put back to its state after the first load before each, and (b) the same records read from the history
 * and written as CSV by the export's CSV code to a file, and (c) the floor: the same records only COPY'd into a
 * temporary table over a new connection. Prints medians and the ratios (the target: the table run ≤ 1.5× the CSV).
 */

await asThePortalRuns();
const options = benchOptions('bench:table', 'A PostgreSQL table run after a day of changes, against writing them to a CSV file.', {
  picks: { default: 55_000, help: "the sandbox's size (55,000: about 40,000 licensed records)" },
  rounds: { default: 7, help: 'alternating rounds' },
});
const KEY = 'bench-table-key-0123';
const DAY = 86_400_000;
const dir = mkdtempSync(path.join(tmpdir(), 'bench-table-'));

const port = await freePort();
const now0 = Date.now();
const sandbox = spawn(process.execPath, ['--import', 'tsx', 'sandbox/main.ts'], {
  env: {
    ...process.env,
    SANDBOX_PORT: String(port),
    SANDBOX_PICKS: String(options.picks),
    SANDBOX_RATE_LIMIT: '0',
    SANDBOX_TEST_HOOKS: '1',
    SANDBOX_NOW: new Date(now0).toISOString(),
    SANDBOX_FULL_KEY: KEY,
  },
  stdio: 'ignore',
});
const upstream = `http://127.0.0.1:${port}`;
const server = await startPostgres();
if (!server) throw new Error('bench:table needs PostgreSQL (initdb, pg_ctl): apt-get install -y postgresql');
try {
  await waitFor(`${upstream}/api/v1/health`, { headers: { Authorization: `Bearer ${KEY}` } });
  Object.assign(process.env, {
    DATABASE_URL: '',
    PORTAL_DATA_DIR: dir,
    PORTAL_USERS_FILE: path.join(dir, 'none.json'),
    PICKS_API_BASE_URL: upstream,
    PICKS_API_KEY: KEY,
    DELIVERY_ROOT: path.join(dir, 'out'),
  });
  const { getStore } = await import('../lib/store');
  const { pollOnce } = await import('../lib/changes/poller');
  const { claimFeedLease } = await import('../lib/store/change-feed');
  const { picksApi } = await import('../lib/picks-api');
  const { runTable } = await import('../lib/deliveries/table-run');
  const { headsMovedAfter } = await import('../lib/store/history-writes');
  const { csvHeader, csvLines } = await import('../lib/export/csv');
  const db = (await getStore()).db;
  const partnerUrl = await server.createDatabase('partner');
  const partner = new pg.Client({ connectionString: partnerUrl });
  await partner.connect();
  const pgPort = Number(new URL(partnerUrl).port);
  const user = decodeURIComponent(new URL(partnerUrl).username) || 'postgres';

  let now = now0;
  const hook = (name: string, body: unknown) => fetch(`${upstream}/__sandbox/${name}`, { method: 'POST', body: JSON.stringify(body) });
  const poll = async () => {
    await hook('clock', { now: new Date(now).toISOString() });
    const settings = { daysBack: 400, daysAhead: 400, pollMs: 300_000 };
    const result = await pollOnce({ db, walk: (f, call) => picksApi().walkPicks(f, call), instance: 'bench', settings, now: () => now });
    if (result.outcome !== 'complete') throw new Error(`poll ${result.outcome}`);
  };
  await claimFeedLease(db, 'bench', 1000 * DAY, now);
  await poll();

  const delivery = {
    id: 'dlv_bench_table',
    name: 'Bench table',
    kind: 'picks',
    format: 'jsonl',
    filters: {},
    destination: {
      type: 'postgres',
      host: '127.0.0.1',
      port: pgPort,
      database: 'partner',
      user,
      ssl: 'disable',
      schema: 'public',
      table: 'picks',
    },
  } as unknown as Parameters<typeof runTable>[1]['delivery'];
  let runs = 0;
  const tableRun = () =>
    runTable(
      db,
      {
        delivery,
        runId: `run_bench_${(runs += 1)}`,
        trigger: 'manual',
        startedMs: Date.now(),
        dir,
        password: 'unused',
        address: { address: '127.0.0.1', family: 4 },
        keep: async () => null,
      },
      async () => true,
    );
  const first = await tableRun();
  console.log(`[bench] first run: ${first.records} records loaded (${first.result.table!.inserted} inserted)`);
  await partner.query('create table picks_base as select * from picks');
  const firstSync = (await partner.query<{ history_write: string }>('select history_write from picks_syncs')).rows[0]!;
  const since = Number(firstSync.history_write);

  // A day: the clock moves (events start, settle, get published), 1 % new odds, 0.2 % corrected results, 0.1 % withdrawn.
  now += DAY;
  const ids = (await db.selectFrom('record_heads').select('pick_id').orderBy('pick_id').execute()).map((r) => r.pick_id);
  const pick = (share: number, salt: number) => ids.filter((_, i) => (i * 7919 + 104_729 + salt) % Math.round(1 / share) === 0);
  await hook('clock', { now: new Date(now).toISOString() });
  for (const id of pick(0.01, 1)) await hook('edit', { id, fields: { odds: 1 + (37 % 90) / 10 } });
  for (const id of pick(0.002, 2)) await hook('edit', { id, fields: { result: 'loss' } });
  await hook('retract', { ids: pick(0.001, 4) });
  await poll();

  const restore = async () => {
    await partner.query('truncate picks');
    await partner.query('insert into picks select * from picks_base');
    await partner.query(`delete from picks_syncs where run_id <> 'run_bench_1'`);
    await partner.query('vacuum analyze picks');
  };
  const toCsv = async () => {
    const file = createWriteStream(path.join(dir, 'changes.csv'));
    const write = (text: string) => new Promise<void>((resolve) => (file.write(text) ? resolve() : file.once('drain', resolve)));
    await write(csvHeader());
    let count = 0;
    for (let after: string | null = null; ;) {
      const heads = await headsMovedAfter(db, since, after, 1_000);
      const records = heads.filter((h) => h.body !== null).map((h) => JSON.parse(h.body!));
      await write(csvLines(records));
      count += heads.length;
      if (heads.length < 1_000) break;
      after = heads.at(-1)!.pickId;
    }
    await new Promise<void>((resolve, reject) => file.end((error?: Error | null) => (error ? reject(error) : resolve())));
    return count;
  };

  // The floor: the same records read from the history, made into COPY lines and copied into a temporary table over
  // a new connection, in one transaction — what any load into PostgreSQL pays before it merges a row.
  const toCopy = async () => {
    const { copyLine } = await import('../lib/deliveries/pg-columns');
    const { from: copyFrom } = await import('pg-copy-streams');
    const client = new pg.Client({ connectionString: partnerUrl });
    await client.connect();
    try {
      await client.query('begin');
      await client.query('create temp table floor_stage (like picks including defaults) on commit drop');
      await client.query('alter table floor_stage drop column _deleted, drop column _synced_at');
      const copy = client.query(copyFrom('copy floor_stage from stdin'));
      for (let after: string | null = null; ;) {
        const heads = await headsMovedAfter(db, since, after, 1_000);
        let text = '';
        for (const h of heads) if (h.body !== null) text += copyLine(JSON.parse(h.body), h.body, h.digest!);
        copy.write(text);
        if (heads.length < 1_000) break;
        after = heads.at(-1)!.pickId;
      }
      copy.end();
      await new Promise<void>((resolve, reject) => copy.on('finish', resolve).on('error', reject));
      await client.query('commit');
    } finally {
      await client.end();
    }
  };

  const tableMs: number[] = [];
  const csvMs: number[] = [];
  const floorMs: number[] = [];
  let counts = first.result.table!;
  let moved = 0;
  for (let round = 1; round <= options.rounds; round += 1) {
    await restore();
    const steps: [string, () => Promise<void>][] = [
      [
        'table',
        async () => {
          const start = performance.now();
          counts = (await tableRun()).result.table!;
          tableMs.push(performance.now() - start);
        },
      ],
      [
        'floor',
        async () => {
          const start = performance.now();
          await toCopy();
          floorMs.push(performance.now() - start);
        },
      ],
      [
        'csv',
        async () => {
          const start = performance.now();
          moved = await toCsv();
          csvMs.push(performance.now() - start);
        },
      ],
    ];
    for (const [, step] of round % 2 ? steps : steps.reverse()) await step();
    console.log(
      `[bench] round ${round}: table ${tableMs.at(-1)!.toFixed(0)} ms, COPY alone ${floorMs.at(-1)!.toFixed(0)} ms, csv ${csvMs.at(-1)!.toFixed(0)} ms`,
    );
  }
  const result = {
    picks: options.picks,
    rounds: options.rounds,
    loaded: first.records,
    movedInADay: moved,
    table: counts,
    medianMs: { table: median(tableMs), copyAlone: median(floorMs), csv: median(csvMs) },
    ratio: median(tableMs) / median(csvMs),
    floorRatio: median(floorMs) / median(csvMs),
  };
  console.log(
    `\n[bench] a day's changes: ${moved} records moved (${counts.inserted} inserted, ${counts.updated} updated, ${counts.marked} marked) of ${first.records}; table run ${Math.round(result.medianMs.table)} ms, CSV ${Math.round(result.medianMs.csv)} ms: ${result.ratio.toFixed(3)}× (target ≤ 1.5); the same records COPY'd into a temporary table and nothing else ${Math.round(result.medianMs.copyAlone)} ms: ${result.floorRatio.toFixed(3)}×`,
  );
  await writeResult('table', result);
  await partner.end();
  await (await import('../lib/store')).closeStore();
} finally {
  sandbox.kill('SIGTERM');
  server.destroy();
}
