import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '@/lib/picks-api/errors';
import { client, errorBody, failure } from '../support/picks-client';
import { json, page, type Step } from '../support/stub-fetch';

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

  it('tells each answer’s outcome to onAnswer, retries included (feed health counts them)', async () => {
    const timedOut = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    const { api } = client([json({}, 429, { 'Retry-After': '0' }), timedOut, new TypeError('fetch failed'), page(['a'], null)]);
    const seen: string[] = [];
    await api.walkPicks({}, { onAnswer: (outcome) => seen.push(outcome) }).next();
    expect(seen).toEqual(['429', 'timeout', 'network', 'ok']);
    const failing: string[] = [];
    await client([json({}, 503), json({}, 404)])
      .api.listPicks({}, { onAnswer: (o) => failing.push(o) })
      .catch(() => undefined);
    expect(failing).toEqual(['5xx', '4xx']);
    const refused: string[] = [];
    await failure(client([json(errorBody('UNAUTHORIZED', 'req_1'), 401)]).api.me({ onAnswer: (o) => refused.push(o) }));
    expect(refused).toEqual(['401']);
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

  it('a page (a call bounded by what is left of its wait) does not wait out a Retry-After beyond it', async () => {
    const { api, calls } = client([json(errorBody('THROTTLED', 'req_p'), 429, { 'Retry-After': '20' }), json({ status: 'ok' })], {
      defaultMaxWaitMs: () => 8_000,
    });
    const started = Date.now();
    const error = await failure(api.health());
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(calls).toHaveLength(1);
    expect(error).toMatchObject({ code: 'THROTTLED', retryAfterSeconds: 20, requestId: 'req_p' });
    // Within the bound it is waited out as before.
    const within = client([json({}, 429, { 'Retry-After': '1' }), json({ status: 'ok' })], { defaultMaxWaitMs: () => 8_000 });
    expect(await within.api.health()).toEqual({ status: 'ok' });
    expect(within.calls).toHaveLength(2);
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
          {
            id: 'a',
            status: 'suspended',
            result: 'half-win',
            marketType: 'exotic',
            oddsFormat: 'fractional',
            confidenceTier: 'S+',
            line: '-0.5/-1',
            futureField: { x: 1 },
          },
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
    const { api } = client([
      new Response('<html><body>Bad gateway</body></html>', { status: 200, headers: { 'Content-Type': 'text/html' } }),
    ]);
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

describe('records as delivered', () => {
  it('keeps each record byte-for-byte: key order, unknown fields, nulls and absences', async () => {
    const record = { zeta: 1, id: 'a', status: 'live', unknown: { nested: [1, 2] }, line: null };
    const { api } = client([json({ data: [record], page: { nextCursor: null, hasMore: false }, requestId: 'r' })]);
    const [pick] = (await api.listPicks({})).data;
    expect(JSON.stringify(pick)).toBe(JSON.stringify(record));
  });
});
