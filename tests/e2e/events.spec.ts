import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { EventSource } from 'eventsource';
import pg from 'pg';
import { postgresMissing, startPostgres, type TestPostgres } from '../support/postgres';
import { startCuttingProxy } from '../support/cutting-proxy';
import { expect, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { changeFeedIds, eventPages, pollAndWait, postToken, sandboxHook, startHookedSandbox, type Event } from '../support/events';
import { webhooksFromThePage } from '../support/webhooks-flow';
import { waitUntil, type Instance } from '../support/instances';
import { jsonSignIn, sessionCookie } from '../support/session';
import { startStaffPortal } from '../support/staff-portal';

/**
 * API v1's event stream end to end, without a browser: a portal started with `npm start` watching a sandbox of
 * this spec's own, whose clock the test moves. Real clients — the `eventsource` package (the WHATWG EventSource)
 * and `curl -N` — receive the events; a proxy cuts the stream in the middle of a burst, twice, and the client
 * resumes with Last-Event-ID. What arrives is compared with the change feed's own download for the same scope.
 */

const SANDBOX = 'http://127.0.0.1:4243';
const PORT = 3244;
const PAIR = [3245, 3246] as const;
const KEY = E2E.sandboxKey;
let sandbox: ChildProcess;
let portal: Instance & { dataDir: string };
let db: Database.Database;
let admin = '';
const tokens: Record<string, { id: string; token: string }> = {};

const hook = (name: string, body: unknown) => sandboxHook(SANDBOX, name, body);
const HEIR = { email: 'heir@staff.picks.test', password: 'staff-heir-pass-0123', role: 'editor' as const };
const feed = () =>
  db.prepare('select polls, outcome, last_seq from change_feed').get() as { polls: number; outcome: string; last_seq: number };
const v1 = (pathname: string, token: string, headers: Record<string, string> = {}) =>
  fetch(`${portal.origin}/api/v1${pathname}`, { headers: { Authorization: `Bearer ${token}`, ...headers } });

const pollNow = () => pollAndWait(portal.origin, admin, feed);
const pages = (token: string, after: number) => eventPages(portal.origin, token, after);
const feedEntries = (league: string | null) => changeFeedIds(portal.origin, admin, league);

async function makeToken(name: string, scope: Record<string, unknown>) {
  tokens[name] = await postToken(portal.origin, admin, name, scope);
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  sandbox = await startHookedSandbox(4243, KEY);
  // An hour between polls: the spec asks for each poll itself ("Poll now").
  portal = await startStaffPortal(PORT, {
    label: 'events',
    roles: ['admin', 'editor'],
    others: [HEIR],
    env: {
      ...upstreamEnv(SANDBOX, KEY),
      AUTH_SECRET: 'events-spec-secret-0123456789-abcdef',
      CHANGES_POLL_SECONDS: '3600',
      DELIVERY_SECRET_KEY: 'events-spec-delivery-secret-0123456789',
      DELIVERY_ALLOW_PRIVATE_TARGETS: '1',
    },
  });
  db = new Database(path.join(portal.dataDir, 'portal.sqlite'), { readonly: true });
  admin = await sessionCookie(portal.origin, 'admin');
  await waitUntil(async () => feed().polls >= 1 && feed().outcome === 'complete', 'the baseline poll', 60_000);
  await makeToken('everything', { content: ['picks', 'results', 'changes'] });
  await makeToken('plain', { content: ['picks', 'results'] });
});

test.afterAll(async () => {
  db?.close();
  await portal?.stop();
  if (sandbox && sandbox.exitCode === null && sandbox.signalCode === null) {
    sandbox.kill('SIGTERM');
    await once(sandbox, 'exit');
  }
});

test('an EventSource cut twice mid-burst resumes with Last-Event-ID: every event of the feed once, linked', async () => {
  test.setTimeout(120_000);
  const start = feed().last_seq;
  const proxy = await startCuttingProxy({ host: '127.0.0.1', port: PORT }, [6_000, 20_000]);
  const received: Event[] = [];
  const source = new EventSource(`${proxy.url}/api/v1/events`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, Authorization: `Bearer ${tokens.everything!.token}` } }),
  });
  const take = (message: MessageEvent) => received.push(JSON.parse(message.data as string) as Event);
  for (const type of ['pick.published', 'pick.changed', 'pick.settled', 'pick.withdrawn', 'pick.restored'])
    source.addEventListener(type, take);
  try {
    await waitUntil(async () => source.readyState === EventSource.OPEN, 'the stream to open', 10_000);
    await hook('clock', { advanceMs: 24 * 3_600_000 });
    await pollNow();
    const expected = await pages(tokens.everything!.token, start);
    expect(expected.length).toBeGreaterThan(40);
    await waitUntil(async () => received.length >= expected.length, `${expected.length} events (have ${received.length})`, 60_000);
    expect(proxy.cuts()).toEqual([0, 1]);
    expect(proxy.connections()).toBeGreaterThanOrEqual(3);
    // Exactly the feed's events, none twice, in order, each linked to the one before across the cuts.
    expect(received.map((e) => e.seq)).toEqual(expected.map((e) => e.seq));
    expect(received).toEqual(expected);
    for (let i = 1; i < received.length; i += 1) expect(received[i]!.prev).toBe(received[i - 1]!.hash);
    expect(received.map((e) => e.pickId).sort()).toEqual((await feedEntries(null)).sort());

    // The portal's signed receipt for them: the offline verifier accepts what was received, and not one event less.
    const from = received[0]!.seq;
    const to = received.at(-1)!.seq;
    const answer = await v1(`/events/receipt?from=${from}&to=${to}`, tokens.everything!.token);
    expect(answer.status).toBe(200);
    const receipt = (await answer.json()) as { receipt: { count: number; lastHash: string; prev: string | null }; jws: string };
    expect(receipt.receipt).toMatchObject({ count: received.length, lastHash: received.at(-1)!.hash, prev: received[0]!.prev });
    const dir = mkdtempSync(path.join(tmpdir(), 'events-receipt-'));
    writeFileSync(path.join(dir, 'receipt.json'), JSON.stringify(receipt));
    const check = (events: Event[]) => {
      writeFileSync(path.join(dir, 'events.jsonl'), events.map((e) => JSON.stringify(e)).join('\n'));
      const args = ['public/verify-picks-events.mjs', path.join(dir, 'events.jsonl'), '--receipt', path.join(dir, 'receipt.json')];
      return spawnSync(process.execPath, [...args, '--keys', `${portal.origin}/api/proof/keys`], { encoding: 'utf8' });
    };
    const whole = check(received);
    expect(whole.stdout).toContain('verified: none missing, altered or added');
    expect(whole.status).toBe(0);
    const short = check(received.filter((_, i) => i !== 5));
    expect(short.stdout).toMatch(/FAIL count/);
    expect(short.status).toBe(1);
  } finally {
    source.close();
    await proxy.close();
  }
});

test('consumer webhooks from the token page in Chromium: test, down then back in order, resend one and every event after one', async ({
  page,
  browser,
}) => {
  test.setTimeout(150_000);
  const moveAndPoll = async () => (await hook('clock', { advanceMs: 6 * 3_600_000 }), await pollNow());
  await webhooksFromThePage({ page, browser, origin: portal.origin, admin, moveAndPoll, lastSeq: () => feed().last_seq });
});

test('a resend pays the token’s quota; a token given to another owner holds its webhooks until that owner confirms each', async () => {
  test.setTimeout(60_000);
  const received: string[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => (received.push(String(req.headers['webhook-id'])), res.writeHead(204).end()));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/leaver/own-server?k=1`;
  try {
    const editor = await sessionCookie(portal.origin, 'editor');
    const heir = (await jsonSignIn(portal.origin, HEIR.email, HEIR.password)).cookie;
    const call = async (cookie: string, method: string, pathname: string, body?: unknown) => {
      const res = await fetch(`${portal.origin}${pathname}`, {
        method,
        headers: { cookie, origin: portal.origin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json().catch(() => null)) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    const made = await call(editor, 'POST', '/api/tokens', {
      name: 'leaver',
      scope: { content: ['picks', 'results', 'changes'], sports: [], leagues: [] },
      expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      ratePerMinute: 60,
      dailyRecords: 3,
    });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const webhooks = `/api/tokens/${made.json.id as string}/webhooks`;
    const added = await call(editor, 'POST', webhooks, { url });
    expect(added.status, JSON.stringify(added.json)).toBe(201);
    const one = `${webhooks}/${added.json.id as string}`;
    const seq = feed().last_seq;
    // A resent event is one record of three; the quota spent, a resend is refused and sends nothing.
    expect((await call(editor, 'POST', `${one}/resend`, { event: seq })).json.attempt).toMatchObject({ outcome: 'delivered', seq });
    expect((await v1('/picks?limit=2', made.json.token as string)).status).toBe(200);
    const refused = await call(editor, 'POST', `${one}/resend`, { event: seq });
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: 'QUOTA_SPENT', message: expect.stringContaining('its 3 records for today') });
    expect(received).toEqual([`evt_${seq}`]);

    // Given to another editor: the webhook waits for them; only they see its whole URL and may confirm it.
    expect((await call(admin, 'PATCH', `/api/tokens/${made.json.id as string}`, { owner: HEIR.email })).status).toBe(200);
    const asAdmin = (await call(admin, 'GET', webhooks)).json.data[0];
    expect(asAdmin).toMatchObject({
      state: 'unconfirmed',
      wholeUrl: null,
      why: expect.stringContaining(`until ${HEIR.email} confirms it`),
    });
    expect(JSON.stringify(asAdmin)).not.toContain('own-server');
    expect((await call(heir, 'GET', webhooks)).json.data[0]).toMatchObject({ state: 'unconfirmed', wholeUrl: url });
    expect((await call(heir, 'POST', `${one}/test`)).json.error.details.webhook).toMatch(/cannot send now/);
    const audit = await fetch(`${portal.origin}/api/audit?action=token.webhook.await&format=json`, { headers: { cookie: admin } });
    expect(await audit.text()).toContain(`webhook ${added.json.id as string}`);
    expect((await call(admin, 'POST', `${one}/confirm`)).status).toBe(403);
    expect((await call(heir, 'POST', `${one}/confirm`)).json).toMatchObject({ confirmedBy: HEIR.email, wholeUrl: null });
    expect(received).toEqual([`evt_${seq}`]);
  } finally {
    receiver.close();
  }
});

test("a stream past the token's daily quota gets a quota event, then ends", async () => {
  test.setTimeout(60_000);
  await makeToken('five a day', { content: ['picks', 'results', 'changes'] });
  await fetch(`${portal.origin}/api/tokens/${tokens['five a day']!.id}`, {
    method: 'PATCH',
    headers: { cookie: admin, origin: portal.origin, 'content-type': 'application/json' },
    body: JSON.stringify({ dailyRecords: 5 }),
  }).then((res) => expect(res.status).toBe(200));
  const stream = await v1('/events?after=0', tokens['five a day']!.token, { Accept: 'text/event-stream' });
  expect(stream.status).toBe(200);
  const text = await stream.text();
  const frames = text.split('\n\n').filter((frame) => frame.includes('\ndata: ') || frame.startsWith('event: '));
  expect(frames.filter((frame) => /^id: \d+\nevent: pick\./.test(frame))).toHaveLength(5);
  expect(frames.at(-1)).toMatch(/^event: quota\ndata: \{"code":"QUOTA_EXCEEDED","message":"This token has read its 5 records for today/);
});

test('curl -N with a token narrowed to one league receives that league only, with the heartbeat', async () => {
  test.setTimeout(60_000);
  const everything = await pages(tokens.everything!.token, 0);
  const league = everything[Math.floor(everything.length / 2)]!.record!.league as string;
  await makeToken('one league', { content: ['picks', 'results', 'changes'], leagues: [league] });
  const curl = spawn('curl', [
    '-N',
    '-s',
    '--max-time',
    '6',
    '-H',
    'Accept: text/event-stream',
    '-H',
    `Authorization: Bearer ${tokens['one league']!.token}`,
    `${portal.origin}/api/v1/events?after=0`,
  ]);
  let text = '';
  curl.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  await once(curl, 'exit');
  expect(text).toMatch(/^retry: 3000\n: alive \d{4}-\d{2}-\d{2}T[\d:.]+Z; last poll \d{4}-\d{2}-\d{2}T[\d:.]+Z\n\n/);
  const frames = text.split('\n\n').filter((frame) => frame.includes('\ndata: '));
  const events = frames.map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as Event);
  expect(events.length).toBeGreaterThan(2);
  expect(events.every((e) => e.record === null || e.record.league === league)).toBe(true);
  expect(events.map((e) => e.pickId).sort()).toEqual((await feedEntries(league)).sort());
  expect(frames[0]).toMatch(new RegExp(`^id: ${events[0]!.seq}\nevent: ${events[0]!.type.replace('.', '\\.')}\ndata: `));
});

test("refuses a token without the content, names every wrong parameter, and ends a revoked token's stream within 10 s", async () => {
  test.setTimeout(60_000);
  const refused = await v1('/events', tokens.plain!.token, { Accept: 'text/event-stream' });
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
    code: 'OUT_OF_SCOPE',
    message: expect.stringContaining('"changes"'),
  });
  const bad = await v1('/events?after=-1&limit=5000&sport=Football', tokens.everything!.token);
  expect(bad.status).toBe(400);
  const said = ((await bad.json()) as { error: { message: string } }).error.message;
  expect(said).toMatch(/sport is not a parameter/);
  expect(said).toMatch(/after must be an event id/);
  expect(said).toMatch(/limit must be a whole number from 1 to 1000/);
  const ahead = await v1(`/events?after=${feed().last_seq + 10}`, tokens.everything!.token);
  expect(ahead.status).toBe(400);

  // A change of scope ends the stream (another view of the feed): the consumer reconnects to read it.
  await makeToken('to narrow', { content: ['picks', 'changes'] });
  const narrowed = await v1('/events', tokens['to narrow']!.token, { Accept: 'text/event-stream' });
  expect(narrowed.status).toBe(200);
  const patched = await fetch(`${portal.origin}/api/tokens/${tokens['to narrow']!.id}`, {
    method: 'PATCH',
    headers: { cookie: admin, origin: portal.origin, 'content-type': 'application/json' },
    body: JSON.stringify({ scope: { content: ['picks', 'changes'], sports: ['Tennis'], leagues: [] } }),
  });
  expect(patched.status).toBe(200);
  const changedAt = Date.now();
  expect(await narrowed.text()).toMatch(/event: closed\ndata: \{"code":"SCOPE_CHANGED","message":"This token's scope changed: reconnect/);
  expect(Date.now() - changedAt).toBeLessThan(10_000);

  await makeToken('to revoke', { content: ['picks', 'changes'] });
  const stream = await v1('/events', tokens['to revoke']!.token, { Accept: 'text/event-stream' });
  expect(stream.status).toBe(200);
  expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const reader = stream.body!.getReader();
  const revoked = await fetch(`${portal.origin}/api/tokens/${tokens['to revoke']!.id}`, {
    method: 'DELETE',
    headers: { cookie: admin, origin: portal.origin },
  });
  expect(revoked.status).toBe(204);
  const at = Date.now();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString('utf8');
  }
  expect(Date.now() - at).toBeLessThan(10_000);
  expect(text).toMatch(/event: closed\ndata: \{"code":"UNAUTHORIZED","message":"Missing or invalid credentials\."\}\n\n$/);
});

test.describe.serial('two instances on one PostgreSQL', () => {
  let pgServer: TestPostgres | null = null;
  let client: pg.Client;
  const pair: Instance[] = [];
  const lastSeq = async () => Number((await client.query('select last_seq from change_feed')).rows[0].last_seq);

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    pgServer = await startPostgres();
    if (!pgServer) {
      test.skip(true, postgresMissing('the two-instance event stream test'));
      return;
    }
    const url = await pgServer.createDatabase('events');
    client = new pg.Client({ connectionString: url });
    await client.connect();
    const env = { ...upstreamEnv(SANDBOX, KEY), AUTH_SECRET: 'events-spec-secret-0123456789-abcdef', DATABASE_URL: url };
    // A polls (when asked); B never does: B's streams learn of A's entries through the store.
    pair.push(await startStaffPortal(PAIR[0], { label: 'events-a', roles: ['admin'], env: { ...env, CHANGES_POLL_SECONDS: '3600' } }));
    pair.push(await startStaffPortal(PAIR[1], { label: 'events-b', roles: ['admin'], env: { ...env, CHANGES_POLL_SECONDS: '0' } }));
    await waitUntil(async () => (await client.query('select polls from change_feed')).rows[0].polls >= 1, "A's baseline poll", 60_000);
  });
  test.afterAll(async () => {
    await client?.end();
    await Promise.all(pair.map((instance) => instance.stop()));
    pgServer?.destroy();
  });

  test('an event recorded by one instance reaches a stream held on the other within 2 s', async () => {
    test.setTimeout(120_000);
    const [a, b] = pair as [Instance, Instance];
    const cookieA = await sessionCookie(a.origin, 'admin');
    const { token } = await postToken(a.origin, cookieA, 'across instances', { content: ['picks', 'results', 'changes'] });
    const stream = await fetch(`${b.origin}/api/v1/events`, { headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    let received = 0;
    const firstEvent = (async () => {
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) throw new Error('the stream ended');
        text += Buffer.from(value).toString('utf8');
        if (/\nevent: pick\./.test(text)) return (received = Date.now());
      }
    })();
    const before = await lastSeq();
    await hook('clock', { advanceMs: 3_600_000 });
    const asked = await fetch(`${a.origin}/api/changes/poll`, { method: 'POST', headers: { cookie: cookieA, origin: a.origin } });
    expect(asked.status).toBe(202);
    // When A's entries were committed, seen from the store every 20 ms.
    const deadline = Date.now() + 60_000;
    while ((await lastSeq()) === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const committed = Date.now();
    expect(await lastSeq()).toBeGreaterThan(before);
    await firstEvent;
    await reader.cancel();
    expect(received - committed).toBeLessThan(2_000);
  });
});
