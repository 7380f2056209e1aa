import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@/lib/store/open';
import type { TokenScope } from '@/lib/vocabulary/tokens';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { answerChecker } from '../support/openapi-check';

/**
 * API v1's event stream through the route handler (app/api/v1/events/route.ts), as the portal serves it under a
 * server other than its own (ADR 0013): a web Response whose body is a TransformStream. Against the sandbox over
 * real HTTP on the embedded store: every event of the token's view arrives in order with its id; a request without
 * a token is refused as JSON; aborting the request ends the stream.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
const everything: TokenScope = { content: ['picks', 'results', 'changes'], sports: [], leagues: [], from: null, to: null };
let sandbox: Sandbox;
let store: Store;
let token = '';

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 3000 });
  const baseUrl = await sandbox.listen(0);
  const dir = await mkdtemp(path.join(tmpdir(), 'events-route-'));
  Object.assign(process.env, {
    PICKS_API_BASE_URL: baseUrl,
    PICKS_API_KEY: KEY,
    AUTH_SECRET: 'x'.repeat(40),
    PORTAL_DATA_DIR: dir,
    DATABASE_URL: '',
    PORTAL_USERS_FILE: path.join(dir, 'users.json'),
    PORTAL_SANDBOX: '',
    // The sandbox's day is a week back: its events are kept.
    EVENTS_RETENTION_DAYS: '30',
  });
  const { closeStore, getStore } = await import('@/lib/store');
  await closeStore();
  store = await getStore();
  const { claimFeedLease } = await import('@/lib/store/change-feed');
  const { pollOnce } = await import('@/lib/changes/poller');
  const { createPicksClient } = await import('@/lib/picks-api/client');
  expect(await claimFeedLease(store.db, 'a', 30 * 86_400_000, T0)).toBe(true);
  const poll = () =>
    pollOnce({
      db: store.db,
      walk: (f, call) => createPicksClient({ baseUrl, apiKey: KEY, retry: { maxRetries: 0 } }).walkPicks(f, call),
      instance: 'a',
      settings: { daysBack: 7, daysAhead: 14, pollMs: 300_000 },
      now: () => sandbox.controls.now(),
    });
  await poll();
  sandbox.controls.setNow(T0 + 6 * 3_600_000);
  await poll();
  const { putUser } = await import('@/lib/store/users');
  await putUser(store.db, { email: 'ed@example.com', role: 'editor', passwordHash: 'x' });
  const { newToken } = await import('@/lib/tokens/access');
  const { insertToken } = await import('@/lib/store/tokens');
  const made = newToken();
  token = made.token;
  const now = Date.now();
  await insertToken(
    store.db,
    {
      id: 'tok_00000000abcd',
      name: 'route handler',
      owner: 'ed@example.com',
      ownerSinceMs: now,
      prefix: made.prefix,
      scope: everything,
      expiresMs: now + 86_400_000,
      ratePerMinute: 600,
      dailyRecords: 1_000_000,
      createdMs: now,
      createdBy: 'ed@example.com',
      updatedMs: now,
      revokedMs: null,
      revokedBy: null,
    },
    made.hash,
  );
});

afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  sandbox.close();
});

describe('the event stream through the route handler', () => {
  it('sends every event of the token’s view in order, refuses a request without a token as JSON, and ends when the request is aborted', async () => {
    const { GET } = await import('@/app/api/v1/events/route');
    const { readEventsAfter } = await import('@/lib/events/read');
    const expected = (await readEventsAfter(store.db, everything, 0, 100_000, null)).events;
    expect(expected.length).toBeGreaterThan(10);

    const refused = await GET(new Request('http://portal.test/api/v1/events', { headers: { accept: 'text/event-stream' } }));
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');

    const controller = new AbortController();
    const res = await GET(
      new Request('http://portal.test/api/v1/events?after=0', {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
        signal: controller.signal,
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const ids = () => [...text.matchAll(/^id: (\d+)\nevent: pick\.[a-z]+\ndata: /gm)].map((m) => Number(m[1]));
    while (ids().length < expected.length) {
      const { done, value } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
    expect(text.startsWith('retry: 3000\n')).toBe(true);
    expect(ids()).toEqual(expected.map((e) => e.seq));
    const streamed = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as { hash: string });
    expect(streamed.at(-1)?.hash).toBe(expected.at(-1)!.hash);
    // As the OpenAPI document states the stream: its media type listed, each event's data an Event.
    const { v1Document } = await import('@/lib/api-v1/openapi');
    const check = answerChecker(v1Document());
    expect(check('GET', '/api/v1/events', 200, undefined, res.headers.get('content-type'))).toBeNull();
    const asPage = { data: streamed, gap: null, page: { after: 0, nextAfter: 1, lastId: 1, hasMore: false }, requestId: 'req_stream' };
    expect(check('GET', '/api/v1/events', 200, asPage, 'application/json')).toBeNull();
    controller.abort();
    const ended = await Promise.race([
      (async () => {
        for (;;) if ((await reader.read()).done) return true;
      })().catch(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), 10_000)),
    ]);
    expect(ended).toBe(true);
  });
});
