import { describe, expect, it } from 'vitest';
import { AppError } from '@/lib/errors';
import { createPicksClient, parseRetryAfter, sniffNextCursor, type PicksClientOptions } from '@/lib/picks-api/client';
import { createUpstreamGate } from '@/lib/picks-api/gate';
import { json, page, scriptedFetch, type Step } from '../support/stub-fetch';

const BASE = 'https://api.example.test';

function client(steps: Step[], options: Partial<PicksClientOptions> = {}) {
  const stub = scriptedFetch(steps);
  const api = createPicksClient({
    baseUrl: BASE,
    apiKey: 'test-key',
    fetch: stub.fetch,
    random: () => 0, // full jitter drawn at its floor: no waiting in tests
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
    ...options,
  });
  return { api, ...stub };
}

async function failure(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const errorBody = (code: string, requestId = 'req_abc') => ({ error: { code, message: 'nope', requestId } });

describe('retries and backoff', () => {
  it('retries a 5xx and then succeeds', async () => {
    const { api, calls } = client([json({}, 503), json({}, 500), page(['a'], null)]);
    const list = await api.listPicks({});
    expect(list.data.map((p) => p.id)).toEqual(['a']);
    expect(calls).toHaveLength(3);
  });

  it('gives up after 3 retries with the upstream error and its requestId', async () => {
    const { api, calls } = client([json(errorBody('X', 'req_1'), 502), json({}, 502), json({}, 503), json(errorBody('X', 'req_4'), 500)]);
    const error = await failure(api.listPicks({}));
    expect(calls).toHaveLength(4);
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.requestId).toBe('req_4');
    expect(error.message).toContain('HTTP 500');
  });

  it('retries network errors', async () => {
    const { api, calls } = client([new TypeError('fetch failed'), new TypeError('fetch failed'), json({ status: 'ok' })]);
    expect(await api.health()).toEqual({ status: 'ok' });
    expect(calls).toHaveLength(3);
  });

  it('reports an unreachable upstream after the last retry', async () => {
    const { api, calls } = client(Array.from({ length: 4 }, () => new TypeError('fetch failed')));
    const error = await failure(api.me());
    expect(calls).toHaveLength(4);
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 503 });
  });

  it.each([
    [400, 'INVALID_FILTERS', 400],
    [401, 'UPSTREAM_UNAUTHORIZED', 502],
    [403, 'LICENCE_UNAVAILABLE', 403],
    [404, 'NOT_FOUND', 404],
  ])('never retries %i (-> %s)', async (status, code, portalStatus) => {
    const { api, calls } = client([json(errorBody(status === 400 ? 'INVALID_FILTERS' : 'E'), status), page([], null)]);
    const error = await failure(api.listPicks({}));
    expect(calls).toHaveLength(1);
    expect(error).toMatchObject({ code, status: portalStatus, requestId: 'req_abc' });
    expect(error.message).not.toContain('test-key');
  });

  it('uses full jitter: the wait is drawn between 0 and the exponential ceiling', async () => {
    const waits: number[] = [];
    let last = Date.now();
    const stamp = () => {
      const now = Date.now();
      waits.push(now - last);
      last = now;
    };
    const { api } = client(
      [
        (() => (stamp(), json({}, 503))) as Step,
        (() => (stamp(), json({}, 503))) as Step,
        (() => (stamp(), json({ status: 'ok' }))) as Step,
      ],
      { random: () => 0.999, retry: { baseDelayMs: 40, maxDelayMs: 60 } },
    );
    await api.health();
    // attempt 0 waits ~0.999*40, attempt 1 is capped at ~0.999*60
    expect(waits[1]).toBeGreaterThanOrEqual(35);
    expect(waits[2]).toBeGreaterThanOrEqual(55);
  });
});

describe('429 and Retry-After', () => {
  it('waits out Retry-After (seconds) and then succeeds', async () => {
    const times: number[] = [];
    const { api } = client([
      () => (times.push(Date.now()), json(errorBody('THROTTLED'), 429, { 'Retry-After': '1' })),
      () => (times.push(Date.now()), json({ status: 'ok' })),
    ]);
    await api.health();
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
  });

  it('uses bounded backoff when Retry-After is absent', async () => {
    const { api, calls } = client([json({}, 429), json({}, 429), json({ status: 'ok' })]);
    expect(await api.health()).toEqual({ status: 'ok' });
    expect(calls).toHaveLength(3);
  });

  it('fails at once, saying how long to wait, when Retry-After is beyond the cap', async () => {
    const { api, calls } = client([json(errorBody('THROTTLED', 'req_t'), 429, { 'Retry-After': '120' })]);
    const error = await failure(api.health());
    expect(calls).toHaveLength(1);
    expect(error).toMatchObject({ code: 'THROTTLED', status: 429, retryAfterSeconds: 120, requestId: 'req_t' });
    expect(error.message).toContain('120 s');
  });

  it('after 3 retries of 429 reports throttling with the wait', async () => {
    const { api, calls } = client(Array.from({ length: 4 }, () => json({}, 429, { 'Retry-After': '0' })));
    const error = await failure(api.me());
    expect(calls).toHaveLength(4);
    expect(error.code).toBe('THROTTLED');
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7000);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(30_000);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(null)).toBeNull();
  });
});

describe('timeouts and cancellation', () => {
  const hang: Step = (_url, init) =>
    new Promise<Response>((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason)));

  it('times out a hanging request, retries, then reports a timeout', async () => {
    const { api, calls } = client([hang, hang], { timeoutMs: 50, retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 } });
    const error = await failure(api.me());
    expect(calls).toHaveLength(2);
    expect(error).toMatchObject({ code: 'UPSTREAM_TIMEOUT', status: 504 });
  });

  it('stops at once when the caller aborts, with no further requests', async () => {
    const controller = new AbortController();
    const { api, calls } = client([hang, page(['never'], null)], { timeoutMs: 10_000 });
    const pending = api.listPicks({}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toHaveLength(1);
  });

  it('does not retry after an abort during backoff', async () => {
    const controller = new AbortController();
    const { api, calls } = client([json({}, 503), json({ ok: 1 })], { retry: { baseDelayMs: 5_000, maxDelayMs: 5_000 }, random: () => 1 });
    const pending = api.health({ signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toHaveLength(1);
  });
});

describe('tolerant parsing', () => {
  it('treats absent and null alike, keeps unknown fields and unknown values', async () => {
    const { api } = client([
      json({
        data: [
          { id: 'a', status: 'suspended', result: 'half-win', marketType: 'exotic', oddsFormat: 'fractional', confidenceTier: 'S+', line: '-0.5/-1', futureField: { x: 1 } },
          { id: 'b', line: 2.5, reasoning: null, probability: null },
        ],
        page: { nextCursor: null, hasMore: false },
        requestId: 'req_1',
        extraTopLevel: true,
      }),
    ]);
    const list = await api.listPicks({});
    const [a, b] = list.data;
    expect(a).toMatchObject({ status: 'suspended', result: 'half-win', line: '-0.5/-1', futureField: { x: 1 } });
    expect(a?.reasoning ?? null).toBeNull();
    expect(b?.reasoning ?? null).toBeNull();
    expect(b?.line).toBe(2.5);
    expect(list).toHaveProperty('extraTopLevel', true);
  });

  it('accepts a bare pick and a wrapped pick', async () => {
    const { api } = client([json({ id: 'bare', sport: 'Tennis' }), json({ data: { id: 'wrapped', sport: 'NFL' }, requestId: 'req_w' })]);
    expect((await api.getPick('bare')).id).toBe('bare');
    expect((await api.getPick('wrapped')).id).toBe('wrapped');
  });

  it('rejects a wrong type as a malformed body naming the field', async () => {
    const { api } = client([json({ data: [{ id: 'a', odds: 'lots' }], page: { nextCursor: null, hasMore: false } })]);
    const error = await failure(api.listPicks({}));
    expect(error.code).toBe('UPSTREAM_MALFORMED');
    expect(error.message).toContain('data.0.odds');
  });

  it('rejects a list without its page block', async () => {
    const { api } = client([json({ data: [] })]);
    expect((await failure(api.listPicks({}))).code).toBe('UPSTREAM_MALFORMED');
  });

  it('explains an HTML body instead of crashing', async () => {
    const { api } = client([new Response('<html><body>Bad gateway</body></html>', { status: 200, headers: { 'Content-Type': 'text/html' } })]);
    const error = await failure(api.me());
    expect(error.code).toBe('UPSTREAM_MALFORMED');
    expect(error.message).toContain('text/html');
  });

  it('explains an empty body', async () => {
    const { api } = client([new Response('', { status: 200 })]);
    expect((await failure(api.me())).message).toContain('empty body');
  });

  it('reads a 502 HTML error page as an upstream failure, retried', async () => {
    const html = () => new Response('<h1>502</h1>', { status: 502, headers: { 'Content-Type': 'text/html' } });
    const { api, calls } = client([html(), html(), html(), html()]);
    const error = await failure(api.me());
    expect(calls).toHaveLength(4);
    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', status: 502 });
  });

  it('accepts /results as an envelope or a bare array', async () => {
    const { api } = client([json([{ id: 'r1' }, { id: 'r2' }]), page(['r3'], null)]);
    expect((await api.listResults({})).data.map((p) => p.id)).toEqual(['r1', 'r2']);
    expect((await api.listResults({})).data.map((p) => p.id)).toEqual(['r3']);
  });
});

describe('encoding', () => {
  it('encodes every query value so none can add a parameter', async () => {
    const { api, calls } = client([page([], null)]);
    await api.listPicks({ league: 'Trinidad & Tobago Premier League', sport: 'a=b&status=void#x', cursor: 'ab+/c= d' });
    const url = new URL(calls[0]!.url);
    expect(url.pathname).toBe('/api/v1/picks');
    expect([...url.searchParams.keys()]).toEqual(['sport', 'league', 'cursor']);
    expect(url.searchParams.get('league')).toBe('Trinidad & Tobago Premier League');
    expect(url.searchParams.get('sport')).toBe('a=b&status=void#x');
    expect(url.searchParams.get('cursor')).toBe('ab+/c= d');
    expect(calls[0]!.url).toContain('cursor=ab%2B%2Fc%3D%20d'); // a space as %20, never '+'
  });

  it('keeps opaque ids inside one path segment', async () => {
    const ids = ['pk:epl:001~x+y=', 'a/b', '../me', '?q=1#f', '%2e%2e', 'é ü'];
    const { api, calls } = client(ids.map((id) => json({ id })));
    for (const id of ids) expect((await api.getPick(id)).id).toBe(id);
    for (const [i, call] of calls.entries()) {
      const url = new URL(call.url);
      expect(url.pathname.startsWith('/api/v1/picks/')).toBe(true);
      expect(url.pathname.split('/')).toHaveLength(5);
      expect(url.search).toBe('');
      expect(decodeURIComponent(url.pathname.split('/')[4]!)).toBe(ids[i]);
    }
  });

  it('refuses dot segments and control characters without calling the upstream', async () => {
    const { api, calls } = client([]);
    for (const id of ['.', '..', '', 'a\nb', 'x'.repeat(600)]) expect((await failure(api.getPick(id))).code).toBe('NOT_FOUND');
    expect(calls).toHaveLength(0);
  });

  it('sends the key only in the Authorization header', async () => {
    const { api, calls } = client([json({})]);
    await api.me();
    expect(calls[0]!.url).not.toContain('test-key');
    expect(new Headers(calls[0]!.init.headers).get('authorization')).toBe('Bearer test-key');
  });
});

describe('walking pages', () => {
  it('follows nextCursor with the same filters until the end, in order', async () => {
    const { api, calls } = client([page(['1', '2'], 'c+1='), page(['3'], 'c/2'), page(['4'], null)]);
    const ids: string[] = [];
    for await (const pick of api.walkPicks({ sport: 'Football', status: 'settled' })) ids.push(pick.id!);
    expect(ids).toEqual(['1', '2', '3', '4']);
    expect(calls.map((c) => new URL(c.url).searchParams.get('cursor'))).toEqual([null, 'c+1=', 'c/2']);
    for (const call of calls) {
      const params = new URL(call.url).searchParams;
      expect([params.get('sport'), params.get('status'), params.get('limit')]).toEqual(['Football', 'settled', '200']);
    }
  });

  it('stops on a repeated cursor', async () => {
    const { api } = client([page(['1'], 'same'), page(['2'], 'same'), page(['3'], null)]);
    const error = await failure((async () => { for await (const _ of api.walkPicks({})); })());
    expect(error.code).toBe('PAGINATION_BROKEN');
    expect(error.message).toContain('repeated');
  });

  it('stops when hasMore is true but the cursor is null', async () => {
    const { api } = client([page(['1'], null, true)]);
    const error = await failure((async () => { for await (const _ of api.walkPicks({})); })());
    expect(error.message).toContain('no cursor');
  });

  it('stops past the page limit', async () => {
    const { api } = client(Array.from({ length: 5 }, (_, i) => page([String(i)], `c${i}`)), { maxPages: 3 });
    const error = await failure((async () => { for await (const _ of api.walkPicks({})); })());
    expect(error.message).toContain('3 pages');
  });

  it('prefetches the next page, and cancels it when the consumer stops', async () => {
    let aborted = false;
    const slow: Step = (_url, init) =>
      new Promise((resolve, reject) => {
        init.signal?.addEventListener('abort', () => ((aborted = true), reject(init.signal?.reason)));
        setTimeout(() => resolve(page(['late'], null)), 2_000);
      });
    const { api, calls } = client([page(['1'], 'next'), slow]);
    for await (const pick of api.walkPicks({})) {
      expect(pick.id).toBe('1');
      expect(calls).toHaveLength(2); // page 2 already asked for while page 1 is consumed
      break;
    }
    expect(aborted).toBe(true);
  });
});

describe('guessing the next cursor from a page\'s bytes', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it.each([
    ['the page block last', '{"data":[{"id":"a"}],"page":{"nextCursor":"AAAAxy+/=","hasMore":true},"requestId":"r"}', 'AAAAxy+/='],
    ['the page block first, spaced out', '{ "page" : { "hasMore" : true, "nextCursor" : "c2" },\n "data" : [ ] }', 'c2'],
    ['escapes in the cursor', '{"page":{"nextCursor":"a\\"b\\u00e9\\\\","hasMore":true}}', 'a"b\u00e9\\'],
    ['non-ASCII before it', '{"data":[{"homeTeam":"Hugo Lefèvre ⚽"}],"page":{"nextCursor":"ü1","hasMore":true}}', 'ü1'],
  ])('reads it with %s', (_name, text, cursor) => {
    expect(sniffNextCursor(bytes(text))).toBe(cursor);
  });

  it.each([
    ['a null cursor', '{"data":[],"page":{"nextCursor":null,"hasMore":false}}'],
    ['no cursor', '{"data":[],"page":{"hasMore":false}}'],
    ['an empty cursor', '{"page":{"nextCursor":"","hasMore":true}}'],
    ['a number', '{"page":{"nextCursor":42,"hasMore":true}}'],
    ['a broken escape', '{"page":{"nextCursor":"a\\x","hasMore":true}}'],
    ['a cursor cut off', '{"page":{"nextCursor":"abc'],
    ['a cursor longer than any real one', `{"page":{"nextCursor":"${'x'.repeat(5000)}","hasMore":true}}`],
  ])('gives no guess for %s', (_name, text) => {
    expect(sniffNextCursor(bytes(text))).toBeNull();
  });
});

describe('walking pages ahead of the parse', () => {
  it('sends the next request before the current body is parsed (a body that then fails to parse has already sent it)', async () => {
    const broken = new Response('{"data":[{"id":"1"}],"page":{"nextCursor":"c2","hasMore":true}} and then some', { headers: { 'Content-Type': 'application/json' } });
    let cancelled = false;
    const next: Step = (_url, init) => new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => ((cancelled = true), reject(init.signal?.reason))));
    const { api, calls } = client([broken, next]);
    const error = await failure((async () => { for await (const _ of api.walkPicks({})); })());
    expect(error.code).toBe('UPSTREAM_MALFORMED');
    expect(calls.map((c) => new URL(c.url).searchParams.get('cursor'))).toEqual([null, 'c2']);
    expect(cancelled).toBe(true); // and the walk's failure cancelled it
  });

  it('drops a wrong guess and asks for the page the parsed body names, in order and without losing a record', async () => {
    // An unknown field named nextCursor after the page block fools the guess: the parsed page block decides.
    const decoy = new Response('{"page":{"nextCursor":"real","hasMore":true},"data":[{"id":"1","extra":{"nextCursor":"decoy"}}]}', { headers: { 'Content-Type': 'application/json' } });
    let decoyAborted = false;
    const decoyStep: Step = (_url, init) =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => ((decoyAborted = true), reject(init.signal?.reason))));
    const { api, calls } = client([decoy, decoyStep, page(['2'], null)]);
    const ids: string[] = [];
    for await (const p of api.walkPicks({})) ids.push(p.id!);
    expect(ids).toEqual(['1', '2']);
    expect(calls.map((c) => new URL(c.url).searchParams.get('cursor'))).toEqual([null, 'decoy', 'real']);
    expect(decoyAborted).toBe(true);
  });

  it('guesses only for a page the consumer is waiting for: a slow consumer keeps the walk one page ahead', async () => {
    const { api, calls } = client([page(['1'], 'c2'), page(['2'], 'c3'), page(['3'], null)]);
    const walk = api.walkPicks({});
    expect((await walk.next()).value?.id).toBe('1');
    await new Promise((r) => setTimeout(r, 50)); // page 2 arrives while the consumer is busy with page 1
    expect(calls).toHaveLength(2); // not page 3 as well
    expect((await walk.next()).value?.id).toBe('2');
    expect((await walk.next()).value?.id).toBe('3');
    expect((await walk.next()).done).toBe(true);
    expect(calls).toHaveLength(3);
  });
});

describe('shared gate', () => {
  it('caps requests in flight across callers', async () => {
    let inFlight = 0;
    let peak = 0;
    const step: Step = async () => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 10));
      inFlight -= 1;
      return json({ ok: true });
    };
    const { api } = client(Array.from({ length: 12 }, () => step), { gate: createUpstreamGate(3) });
    await Promise.all(Array.from({ length: 12 }, () => api.health()));
    expect(peak).toBe(3);
  });

  it('holds every caller after one 429, instead of each finding the throttle', async () => {
    const times: number[] = [];
    const steps: Step[] = [() => (times.push(Date.now()), json({}, 429, { 'Retry-After': '1' }))];
    for (let i = 0; i < 5; i += 1) steps.push(() => (times.push(Date.now()), json({ ok: true })));
    const { api, calls } = client(steps, { gate: createUpstreamGate(1) });
    const start = Date.now();
    await Promise.all(Array.from({ length: 5 }, () => api.health()));
    expect(calls).toHaveLength(6); // one 429, then one request per caller: no storm
    for (const at of times.slice(1)) expect(at - start).toBeGreaterThanOrEqual(950);
  });
});

describe('gate priority', () => {
  it('lets a page request waiting for a slot go before export pages that waited longer', async () => {
    const gate = createUpstreamGate(1);
    const order: string[] = [];
    const held = await gate.acquire();
    const waiters = [
      gate.acquire(undefined, Infinity, 'bulk').then((release) => (order.push('bulk-1'), release())),
      gate.acquire(undefined, Infinity, 'bulk').then((release) => (order.push('bulk-2'), release())),
      gate.acquire(undefined, Infinity, 'page').then((release) => (order.push('page'), release())),
    ];
    held();
    await Promise.all(waiters);
    expect(order).toEqual(['page', 'bulk-1', 'bulk-2']);
  });

  it('sends walks as bulk and single requests as pages', async () => {
    const lanes: string[] = [];
    const gate = createUpstreamGate(4);
    const spy = { ...gate, acquire: (signal?: AbortSignal, max?: number, priority?: 'page' | 'bulk') => (lanes.push(priority ?? 'page'), gate.acquire(signal, max, priority)) };
    const page = json({ data: [{ id: '1' }], page: { nextCursor: null, hasMore: false }, requestId: 'r' });
    const { api } = client([page, json({ data: [{ id: '1' }], page: { nextCursor: null, hasMore: false }, requestId: 'r' })], { gate: spy });
    await api.listPicks({});
    for await (const record of api.walkPicks({})) expect(record.id).toBe('1');
    expect(lanes).toEqual(['page', 'bulk']);
  });
});

describe('a pause longer than anyone waits', () => {
  it('fails later callers at once instead of holding them for the whole Retry-After', async () => {
    const { api, calls } = client([json(errorBody('THROTTLED'), 429, { 'Retry-After': '90' }), json({ ok: true })]);
    await expect(api.me()).rejects.toMatchObject({ code: 'THROTTLED', retryAfterSeconds: 90 });
    const started = Date.now();
    const error = await failure(api.health());
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.code).toBe('THROTTLED');
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(85);
    expect(calls).toHaveLength(1); // the upstream is not asked again while it said to pause
  });
});

describe('records as delivered', () => {
  it('keeps each record byte-for-byte: key order, unknown fields, nulls and absences', async () => {
    const record = { zeta: 1, id: 'a', status: 'live', unknown: { nested: [1, 2] }, line: null };
    const { api } = client([json({ data: [record], page: { nextCursor: null, hasMore: false }, requestId: 'r' })]);
    const [pick] = (await api.listPicks({})).data;
    expect(JSON.stringify(pick)).toBe(JSON.stringify(record));
  });
});
