import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import Database from 'better-sqlite3';
import { addUser } from '../lib/auth/users';
import { closeStore } from '../lib/store';
import { startPostgres } from '../tests/support/postgres';
import { benchOptions, writeResult } from './options';
import { median, percentile, rssMb, signIn, startStack, type Running } from './support';

/**
 * `npm run bench:events`: API v1's event stream (issue 50). (1) From the poll that records a change to the event
 * reaching a consumer: each round moves the sandbox's clock, asks the portal to poll, notes when the entries are
 * committed (read from the store every 5 ms) and when each open stream receives the burst's first event — on one
 * instance (embedded database), and across two on one PostgreSQL (the stream held on the instance that does not
 * poll). (2) --streams (1,000) streams open on one instance: the portal's memory per stream, and its event-loop
 * delay (p99, from /metrics) while a burst of about 1,000 changes (records withdrawn through the sandbox's hooks)
 * fans out to every stream, with how long until the last stream has them all.
 */

const options = benchOptions('bench:events', "API v1's event stream: latency from a poll to a consumer, and 1,000 streams.", {
  rounds: { default: 8, help: 'latency rounds per setting' },
  streams: { default: 1000, help: 'streams open at once for the fan-out' },
  burst: { default: 1000, help: 'records withdrawn for the fan-out burst' },
});
const METRICS_TOKEN = 'events-bench-metrics-0123456789';

async function post(url: string, cookie: string, origin: string, body?: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { cookie, origin, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (res.status >= 300) throw new Error(`POST ${url}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

async function streamingToken(portalUrl: string, cookie: string, n = 0): Promise<string> {
  const made = await post(`${portalUrl}/api/tokens`, cookie, portalUrl, {
    name: `bench events ${n}`,
    scope: { content: ['picks', 'results', 'changes'], sports: [], leagues: [] },
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    ratePerMinute: 6_000,
    dailyRecords: 50_000_000,
  });
  return String(made.token);
}

interface Stream {
  events: number;
  firstAt: number;
  lastAt: number;
  close(): void;
}

/** One consumer holding GET /api/v1/events (no pooling: a socket each, as separate systems would). */
function openStream(portalUrl: string, token: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const state: Stream = { events: 0, firstAt: 0, lastAt: 0, close: () => request.destroy() };
    const request = http.get(
      `${portalUrl}/api/v1/events`,
      { agent: false, headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream: HTTP ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          const frames = text.split('\nevent: pick.').length - 1;
          if (frames === 0) return;
          const now = performance.now();
          if (state.events === 0) state.firstAt = now;
          state.events += frames;
          state.lastAt = now;
        });
        resolve(state);
      },
    );
    request.on('error', reject);
  });
}

const reset = (streams: Stream[]) => streams.forEach((s) => Object.assign(s, { events: 0, firstAt: 0, lastAt: 0 }));
const until = async (check: () => boolean | Promise<boolean>, ms: number, what: string) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

/** Rounds of: move the clock, poll on `poller`, time from the commit to each stream's first event. */
async function latency(stack: Running, pollerUrl: string, cookie: string, streams: Stream[], lastSeq: () => Promise<number>) {
  const delays: number[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    reset(streams);
    const before = await lastSeq();
    await fetch(`${stack.sandboxUrl}/__sandbox/clock`, { method: 'POST', body: JSON.stringify({ advanceMs: 3_600_000 }) });
    await post(`${pollerUrl}/api/changes/poll`, cookie, pollerUrl);
    await until(async () => (await lastSeq()) > before, 60_000, 'the poll to record entries');
    const committed = performance.now();
    await until(() => streams.every((s) => s.events > 0), 30_000, 'every stream to receive the burst');
    for (const s of streams) delays.push(s.firstAt - committed);
  }
  return { p50: Math.round(median(delays)), p95: Math.round(percentile(delays, 95)), samples: delays.length };
}

async function eventLoopP99(portalUrl: string): Promise<number> {
  const text = await (await fetch(`${portalUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  return Number(/^portal_process_nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text)?.[1] ?? NaN) * 1000;
}

const results: Record<string, unknown> = {};
// The sandbox's records around today, as the portal's feed window is (the portal's clock is the real one).
const sandboxEnv = { SANDBOX_TEST_HOOKS: '1', SANDBOX_RATE_LIMIT: '0', SANDBOX_PICKS: '8000', SANDBOX_NOW: new Date().toISOString() };
const portalEnv = { METRICS_TOKEN, CHANGES_POLL_SECONDS: '3600' };

// One instance, embedded database: latency, then the fan-out to --streams streams.
{
  const stack = await startStack({ sandboxPort: 4580, portalPort: 3580, sandboxEnv, portalOf: () => ({ env: portalEnv }) });
  try {
    const cookie = await signIn(stack.portalUrl);
    const token = await streamingToken(stack.portalUrl, cookie);
    const db = new Database(path.join(process.env.PORTAL_DATA_DIR!, 'portal.sqlite'), { readonly: true });
    const lastSeq = async () => Number((db.prepare('select last_seq from change_feed').get() as { last_seq: number }).last_seq);
    await until(
      async () => (db.prepare('select polls from change_feed').get() as { polls: number }).polls >= 1,
      120_000,
      'the baseline poll',
    );
    const few = await Promise.all(Array.from({ length: 5 }, () => openStream(stack.portalUrl, token)));
    results.oneInstance = await latency(stack, stack.portalUrl, cookie, few, lastSeq);
    console.log(`[bench] one instance: poll committed → event at a consumer p50 ${JSON.stringify(results.oneInstance)}`);
    few.forEach((s) => s.close());

    // Fan-out: a burst of --burst withdrawals with no stream open (the poll's own cost), then with --streams open.
    const ids: string[] = [];
    const at = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const window = `from=${at(-6)}&to=${at(13)}`;
    for (let cursor: string | null = null; ids.length < options.burst;) {
      const res = await fetch(
        `${stack.sandboxUrl}/api/v1/picks?limit=200&${window}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        {
          headers: { Authorization: `Bearer ${stack.key}` },
        },
      );
      const page = (await res.json()) as { data: { id: string }[]; page: { nextCursor: string | null } };
      if (!res.ok) throw new Error(`the sandbox's records: HTTP ${res.status} ${JSON.stringify(page)}`);
      ids.push(...page.data.map((r) => r.id));
      cursor = page.page.nextCursor;
      if (!cursor) break;
    }
    const burst = ids.slice(0, options.burst);
    /** Retracts (or restores) the burst, polls, and times the fan-out to `streams`: event-loop p99 over all of it. */
    const burstTo = async (streams: Stream[], hook: 'retract' | 'restore') => {
      reset(streams);
      await eventLoopP99(stack.portalUrl); // resets the delay histogram: what follows is this burst's
      const before = await lastSeq();
      await fetch(`${stack.sandboxUrl}/__sandbox/${hook}`, { method: 'POST', body: JSON.stringify({ ids: burst }) });
      await post(`${stack.portalUrl}/api/changes/poll`, cookie, stack.portalUrl);
      await until(async () => (await lastSeq()) > before, 120_000, 'the burst to be recorded');
      const committed = performance.now();
      const recorded = (await lastSeq()) - before;
      await until(() => streams.every((s) => s.events >= recorded), 300_000, `every stream to receive ${recorded} events`);
      const allReceivedMs = streams.length > 0 ? Math.round(Math.max(...streams.map((s) => s.lastAt)) - committed) : 0;
      await new Promise((r) => setTimeout(r, 500));
      return { events: recorded, allReceivedMs, eventLoopP99Ms: Math.round(await eventLoopP99(stack.portalUrl)) };
    };
    const alone = await burstTo([], 'retract');
    await burstTo([], 'restore');
    const pid = stack.portal.pid!;
    await new Promise((r) => setTimeout(r, 1_000));
    const idleMb = rssMb(pid);
    // Five streams a token at most on an instance (lib/api-v1/events-stream.ts), twenty-five live tokens a person.
    const tokens = [token];
    for (let person = 0; tokens.length * 5 < options.streams; person += 1) {
      const user = { email: `events-${person}@example.com`, password: `events-${person}-password` };
      await addUser(user.email, 'admin', user.password);
      await closeStore();
      const theirs = await signIn(stack.portalUrl, user);
      for (let n = 0; n < 25 && tokens.length * 5 < options.streams; n += 1)
        tokens.push(await streamingToken(stack.portalUrl, theirs, tokens.length));
    }
    const many: Stream[] = [];
    for (let i = 0; i < options.streams; i += 50)
      many.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(50, options.streams - i) }, (_, j) =>
            openStream(stack.portalUrl, tokens[Math.floor((i + j) / 5)]!),
          ),
        )),
      );
    await new Promise((r) => setTimeout(r, 3_000));
    const openMb = rssMb(pid);
    const fanned = await burstTo(many, 'retract');
    results.fanOut = {
      streams: many.length,
      mbPerStream: Math.round(((openMb - idleMb) / many.length) * 1000) / 1000,
      rssIdleMb: Math.round(idleMb),
      rssOpenMb: Math.round(openMb),
      pollAlone: alone,
      toEveryStream: fanned,
    };
    console.log(`[bench] fan-out: ${JSON.stringify(results.fanOut)}`);
    many.forEach((s) => s.close());
    db.close();
  } finally {
    stack.stop();
  }
}

// Two instances on one PostgreSQL: the stream held on the one that does not poll.
const server = await startPostgres();
if (server) {
  try {
    const url = await server.createDatabase('bench_events');
    const client = new pg.Client({ connectionString: url });
    const stack = await startStack({
      sandboxPort: 4582,
      portalPort: 3582,
      morePortalPorts: [3583],
      databaseUrl: url,
      sandboxEnv,
      portalOf: (port) => ({ env: { ...portalEnv, CHANGES_POLL_SECONDS: port === 3582 ? '3600' : '0' } }),
    });
    try {
      await client.connect();
      const lastSeq = async () => Number((await client.query('select last_seq from change_feed')).rows[0].last_seq);
      await until(
        async () => Number((await client.query('select polls from change_feed')).rows[0].polls) >= 1,
        120_000,
        'the baseline poll',
      );
      const cookie = await signIn(stack.portalUrl);
      const token = await streamingToken(stack.portalUrl, cookie);
      const other = await Promise.all(Array.from({ length: 5 }, () => openStream('http://127.0.0.1:3583', token)));
      results.twoInstances = await latency(stack, stack.portalUrl, cookie, other, lastSeq);
      console.log(`[bench] across two instances: ${JSON.stringify(results.twoInstances)}`);
      other.forEach((s) => s.close());
    } finally {
      await client.end().catch(() => undefined);
      stack.stop();
    }
  } finally {
    server.destroy();
  }
} else console.log('[bench] PostgreSQL not installed: the two-instance latency was skipped');

await writeResult('events', results);
process.exit(0);
