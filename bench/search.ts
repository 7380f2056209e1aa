import 'server-only';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pollOnce } from '../lib/changes/poller';
import { createPicksClient } from '../lib/picks-api/client';
import { keepIndex } from '../lib/records/index-keeper';
import { claimFeedLease } from '../lib/store/change-feed';
import { openStore, type Store } from '../lib/store/open';
import { foldWords, indexedOf, putIndexed } from '../lib/store/record-index';
import { searchIndexed, type IndexQuery } from '../lib/store/record-search';
import { createSandbox } from '../sandbox/server';
import { startPostgres } from '../tests/support/postgres';
import { sql } from 'kysely';
import { benchOptions, writeResult } from './options';
import { median, percentile } from './support';

/**
 * `npm run bench:search`: the index of the licensed set (lib/store/record-index.ts) at --records (100,000) records on
 * both engines: how long filling it takes, its size, and each kind of question's p50 and p95 over --rounds — words
 * (whole and partial), the whole set ordered by event date (first and last page) and by odds — beside a filtered
 * page of 50 read from the sandbox upstream over loopback in the same rounds (the tables' live read); and what keeping
 * the index adds to each poll of the change feed.
 */

const options = benchOptions('bench:search', 'Search and whole-set order from the index, beside a page read from the upstream.', {
  records: { default: 100_000, help: 'records in the index' },
  rounds: { default: 200, help: 'rounds of each question' },
});
const RECORDS = options.records;
const ROUNDS = options.rounds;

const SPORTS = ['Football', 'Basketball', 'Tennis', 'Cricket', 'Ice Hockey'];
const PLACES = ['Kingston', 'Arlington', 'Fairhaven', 'Ironbridge', 'Holloway', 'Dunmore', 'Aurelia', 'Benfica', 'Celtic', 'Zürich'];
const KINDS = ['City', 'United', 'Rovers', 'Athletic', 'Wanderers', 'Calcio', 'Sul', 'Glen', 'Town', 'Real'];
const team = (i: number) => `${PLACES[i % PLACES.length]} ${KINDS[Math.floor(i / PLACES.length) % KINDS.length]} ${i % 97}`;

function body(i: number) {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  return JSON.stringify({
    id: `pk_${i}`,
    sport: SPORTS[i % SPORTS.length],
    league: `League ${i % 40}`,
    eventMetadata: { competition: `Cup ${i % 13}`, stage: `Round ${i % 7}` },
    eventDescription: `${team(i)} vs ${team(i + 7)}`,
    homeTeam: team(i),
    awayTeam: team(i + 7),
    marketType: ['total goals', 'match winner', 'player shots'][i % 3],
    selection: i % 3 === 2 ? `Player ${i % 500} over 2.5` : 'Over 2.5',
    eventDate: new Date(t0 + ((i * 7_919_000) % (300 * 86_400_000))).toISOString(),
    publishedAt: new Date(t0 + i * 1_000).toISOString(),
    odds: 1 + ((i * 37) % 400) / 100,
    probability: ((i * 13) % 100) / 100,
    status: ['upcoming', 'live', 'settled'][i % 3],
  });
}

async function time(rounds: number, work: (i: number) => Promise<unknown>) {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const start = performance.now();
    await work(i);
    samples.push(performance.now() - start);
  }
  return { p50: Math.round(median(samples) * 10) / 10, p95: Math.round(percentile(samples, 95) * 10) / 10 };
}

const everything: IndexQuery['allowed'] = { sports: null, leagues: null, fromMs: null, toMs: null };
const ask = (q: Partial<IndexQuery>): IndexQuery => ({
  words: [],
  allowed: everything,
  sort: { by: 'eventDate', dir: 'desc' },
  offset: 0,
  limit: 50,
  ...q,
});

async function measure(label: string, store: Store, upstream: () => Promise<unknown>, file?: string) {
  const start = performance.now();
  for (let i = 0; i < RECORDS; i += 5_000)
    await putIndexed(
      store.db,
      Array.from({ length: Math.min(5_000, RECORDS - i) }, (_, j) => indexedOf(`pk_${i + j}`, `d${i + j}`, body(i + j))),
    );
  const fillS = Math.round((performance.now() - start) / 100) / 10;
  const last = Math.floor((RECORDS - 1) / 50) * 50;
  const questions: Record<string, IndexQuery> = {
    'words "kingston city"': ask({ words: foldWords('kingston city').split(' '), sort: { by: 'relevance', dir: 'desc' } }),
    'part of a word "ngsto wand"': ask({ words: ['ngsto', 'wand'], sort: { by: 'relevance', dir: 'desc' } }),
    'words and a sport, by event date': ask({ words: ['zurich'], sport: 'Tennis' }),
    'whole set by event date, first page': ask({ sort: { by: 'eventDate', dir: 'asc' } }),
    'whole set by event date, last page': ask({ sort: { by: 'eventDate', dir: 'asc' }, offset: last }),
    'whole set by odds, descending': ask({ sort: { by: 'odds', dir: 'desc' } }),
  };
  const figures: Record<string, { p50: number; p95: number; counted: number }> = {};
  // The upstream's page and each question in the same rounds, one after the other.
  const upstreamSamples = await time(ROUNDS, upstream);
  // As the pages ask: the counts once per question and index write (lib/records/search.ts), the page every time.
  for (const [name, query] of Object.entries(questions)) {
    const counted = await time(1, () => searchIndexed(store.db, query));
    const { total, valued } = await searchIndexed(store.db, query);
    figures[name] = { ...(await time(ROUNDS, () => searchIndexed(store.db, query, { total, valued }))), counted: counted.p50 };
  }
  // The index's own size: the embedded file (the bench puts no bodies), or PostgreSQL's table with its indexes.
  const bytes = file
    ? statSync(file).size
    : Number((await sql<{ n: string }>`select pg_total_relation_size('record_index') as n`.execute(store.db)).rows[0]?.n ?? 0);
  // The process after the questions (the bench's own copy of the rows let go): the index lives in the store, not here.
  const rssMiB = Math.round(process.memoryUsage().rss / 1_048_576);
  console.log(
    `[bench] search, ${label}: ${RECORDS.toLocaleString('en')} records indexed in ${fillS} s, ${Math.round(bytes / 1_048_576)} MB on disk, the process ${rssMiB} MiB resident`,
  );
  console.log(`[bench]   a filtered page of 50 from the upstream: p50 ${upstreamSamples.p50} ms, p95 ${upstreamSamples.p95} ms`);
  for (const [name, f] of Object.entries(figures))
    console.log(
      `[bench]   ${name}: p50 ${f.p50} ms, p95 ${f.p95} ms (${(f.p95 / upstreamSamples.p95).toFixed(2)}x the upstream's p95); counted first in ${f.counted} ms`,
    );
  return { label, records: RECORDS, fillS, bytes, rssMiB, upstream: upstreamSamples, questions: figures };
}

/**
 * What keeping the index adds to each poll of the change feed: the feed polls a sandbox whose clock moves six hours
 * a round (records published, going live, settling), then the keeper follows the history; each round's keeper time
 * over its poll's, in the same rounds.
 */
async function pollCost(label: string, store: Store) {
  const T0 = Date.parse('2026-11-20T12:00:00Z');
  const moving = createSandbox({ now: () => T0, rateLimit: null, picks: 8000 });
  const url = await moving.listen(0);
  try {
    expect(await claimFeedLease(store.db, 'bench', 30 * 86_400_000, T0));
    const poll = () =>
      pollOnce({
        db: store.db,
        walk: (f, call) => createPicksClient({ baseUrl: url, apiKey: 'sandbox-full-key', retry: { maxRetries: 0 } }).walkPicks(f, call),
        instance: 'bench',
        settings: { daysBack: 7, daysAhead: 14, pollMs: 300_000 },
        now: () => moving.controls.now(),
      });
    await poll();
    await keepIndex(store.db);
    const ratios: number[] = [];
    for (let round = 1; round <= 6; round += 1) {
      moving.controls.setNow(T0 + round * 6 * 3_600_000);
      const polled = performance.now();
      await poll();
      const kept = performance.now();
      await keepIndex(store.db);
      ratios.push((performance.now() - kept) / (kept - polled));
    }
    const ratio = Math.round(median(ratios) * 100) / 100;
    console.log(
      `[bench] search, ${label}: keeping the index adds ${ratio}x a poll's own time (median of 6 polls; each ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
    );
    return ratio;
  } finally {
    moving.close();
  }
}
const expect = (ok: boolean) => {
  if (!ok) throw new Error('the bench could not take the change feed’s lease');
};

const sandbox = createSandbox({ rateLimit: null, picks: 8000 });
const baseUrl = await sandbox.listen(0);
const client = createPicksClient({ baseUrl, apiKey: 'sandbox-full-key', retry: { maxRetries: 0 } });
const upstream = () => client.listPicks({ sport: 'Tennis', limit: 50 });
const rows = [];
const dir = mkdtempSync(path.join(tmpdir(), 'bench-search-'));
const file = path.join(dir, 'portal.sqlite');
const embedded = await openStore({ engine: 'sqlite', file, label: 'bench' });
try {
  rows.push({ ...(await measure('embedded (SQLite)', embedded, upstream, file)), keepOverPoll: null as number | null });
} finally {
  await embedded.close();
}
const fresh = await openStore({ engine: 'sqlite', file: path.join(dir, 'poll.sqlite'), label: 'bench' });
try {
  rows[0]!.keepOverPoll = await pollCost('embedded (SQLite)', fresh);
} finally {
  await fresh.close();
}
const pg = await startPostgres();
if (pg) {
  const store = await openStore({ engine: 'postgres', url: await pg.createDatabase('bench_search'), label: 'bench' });
  const polled = await openStore({ engine: 'postgres', url: await pg.createDatabase('bench_search_poll'), label: 'bench' });
  try {
    rows.push({
      ...(await measure('PostgreSQL (loopback)', store, upstream)),
      keepOverPoll: await pollCost('PostgreSQL (loopback)', polled),
    });
  } finally {
    await store.close();
    await polled.close();
    pg.destroy();
  }
} else console.log('[bench] search, PostgreSQL: SKIPPED (apt-get install -y postgresql)');
sandbox.close();
await writeResult('search', { rows });
