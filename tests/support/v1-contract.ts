/**
 * The contract of API v1 (../shared/spec/picks-api-v1.md) as a client sees it over HTTP, with nothing but
 * fetch: envelope, fields, filters, paging, error body and codes, private non-cacheable answers. One suite,
 * run against the sandbox (tests/contract/sandbox-contract.test.ts, vitest) and against the portal's own
 * /api/v1 with an API token whose scope is the whole licence (tests/e2e/tokens.spec.ts, Playwright): a
 * partner's client that works with the one works with the other by changing its base address and key.
 * Expected sets are derived from what the API itself returns (one walk of everything), never from internals.
 */

import { createPicksClient, type PicksQuery } from '../../clients/typescript/src';
import { answerChecker } from './openapi-check';

/** The test functions of the runner (vitest or Playwright): both have these, with compatible `expect`s. */
export interface Runner {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  beforeAll(body: () => Promise<void>): void;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- vitest's and Playwright's expect differ in type, not in the matchers used here
  expect: any;
}

export interface V1Target {
  baseUrl: string;
  key: string;
  /** The path of the OpenAPI document the API serves: every answer of the suite is checked against it (the portal's). */
  describedBy?: string;
}

type Record_ = {
  id: string;
  sport?: string;
  league?: string;
  status?: string;
  result?: string | null;
  eventDate?: string;
  settledAt?: string | null;
};
type Envelope = { data: Record_[]; page: { nextCursor: string | null; hasMore: boolean }; requestId: string };

export function v1Contract(run: Runner, target: () => V1Target): void {
  const { describe, it, beforeAll, expect } = run;
  let check: ReturnType<typeof answerChecker> | null = null;
  /** Every answer, when the API serves its OpenAPI document, checked against it: a field or status it does not describe fails. */
  const checked = async (method: string, url: string, res: Response) => {
    if (check && method !== 'HEAD' && (res.headers.get('content-type') ?? '').includes('json'))
      expect(
        check(method, url, res.status, await res.clone().json(), res.headers.get('content-type')),
        'the answer, against the OpenAPI document',
      ).toBeNull();
    return res;
  };
  const get = async (path: string, key: string | null = target().key, init: RequestInit = {}) => {
    const url = `${target().baseUrl}${path}`;
    const res = await fetch(url, { ...init, headers: key === null ? {} : { Authorization: `Bearer ${key}` } });
    return checked(init.method ?? 'GET', url, res);
  };
  // Walks go through the client generated from the portal's OpenAPI document (clients/typescript).
  const client = () =>
    createPicksClient({
      baseUrl: target().baseUrl,
      token: target().key,
      fetch: (async (request: Request) => checked(request.method, request.url, await fetch(request))) as typeof fetch,
    });
  async function walk(filters: Record<string, string>, limit = 200, endpoint = 'picks'): Promise<Record_[]> {
    const out: Record_[] = [];
    const cursors = new Set<string>();
    let cursor: string | null = null;
    do {
      const params = { query: { ...filters, limit, ...(cursor ? { cursor } : {}) } as PicksQuery };
      const { data, response } = await (endpoint === 'picks'
        ? client().GET('/api/v1/picks', { params })
        : client().GET('/api/v1/results', { params }));
      expect(response.status).toBe(200);
      const body = data as Envelope;
      expect(body.data.length).toBeLessThanOrEqual(limit);
      out.push(...body.data);
      cursor = body.page.hasMore ? body.page.nextCursor : null;
      if (body.page.hasMore) expect(typeof body.page.nextCursor).toBe('string');
      else expect(body.page.nextCursor).toBeNull();
      if (cursor) {
        expect(cursors.has(cursor)).toBe(false);
        cursors.add(cursor);
      }
    } while (cursor);
    return out;
  }
  const errorOf = async (res: Response) =>
    ({ status: res.status, ...((await res.json()) as { error: object }).error }) as {
      status: number;
      code: string;
      message: string;
      requestId: string;
    };
  let everything: Record_[] = [];

  beforeAll(async () => {
    const describedBy = target().describedBy;
    if (describedBy) {
      // Served without a token: the document holds no data.
      const res = await fetch(`${target().baseUrl}${describedBy}`);
      expect(res.status).toBe(200);
      check = answerChecker(await res.json());
    }
    everything = await walk({});
  });

  describe('API v1: endpoints', () => {
    it('GET /me describes the caller and its licence, with a requestId', async () => {
      const res = await get('/api/v1/me');
      expect(res.status).toBe(200);
      const me = await res.json();
      expect(typeof me).toBe('object');
      expect(String(me.requestId)).toMatch(/^req_[0-9a-zA-Z]+$/);
      expect(JSON.stringify(me)).not.toContain(target().key);
    });

    it('GET /health answers, with no private data', async () => {
      const res = await get('/api/v1/health');
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ status: 'ok' });
      expect(text).not.toContain(target().key);
    });

    it('GET /picks answers the envelope: data, page.nextCursor, page.hasMore, requestId', async () => {
      const body = (await (await get('/api/v1/picks?limit=3')).json()) as Envelope;
      expect(Object.keys(body).sort()).toEqual(['data', 'page', 'requestId']);
      expect(body.data).toHaveLength(3);
      expect(body.page).toMatchObject({ hasMore: true });
      expect(typeof body.page.nextCursor).toBe('string');
      expect(body.requestId).toMatch(/^req_/);
      expect(body.data.map((r) => r.id)).toEqual(everything.slice(0, 3).map((r) => r.id));
    });

    it('GET /picks/:id returns the record, for ids with : ~ + =', async () => {
      const target = everything.find((r) => /[:~+=]/.test(r.id)) ?? everything[0]!;
      const res = await get(`/api/v1/picks/${encodeURIComponent(target.id)}`);
      expect(res.status).toBe(200);
      const body = await res.json();
      // The spec leaves open whether the record comes bare or wrapped in { data }.
      expect('data' in body && body.data && typeof body.data === 'object' ? body.data : body).toEqual(target);
    });

    it('GET /results returns settled records only', async () => {
      const results = await walk({}, 200, 'results');
      expect(results.length).toBeGreaterThan(0);
      expect(results.length).toBe(everything.filter((r) => r.status === 'settled').length);
      expect(results.every((r) => r.status === 'settled' && ['win', 'loss', 'push', 'void'].includes(r.result!) && r.settledAt)).toBe(true);
    });

    it('answers private, non-cacheable JSON with a requestId, on success and on error', async () => {
      for (const res of [await get('/api/v1/picks?limit=1'), await get('/api/v1/picks?status=nope'), await get('/api/v1/me', null)]) {
        expect(res.headers.get('cache-control')).toBe('private, no-store');
        expect(res.headers.get('content-type')).toContain('application/json');
        const body = await res.json();
        expect(body.requestId ?? body.error.requestId).toMatch(/^req_/);
      }
    });

    it('caps the page size at 200', async () => {
      expect(((await (await get('/api/v1/picks?limit=200')).json()) as Envelope).data).toHaveLength(200);
      expect(((await (await get('/api/v1/picks?limit=5000')).json()) as Envelope).data).toHaveLength(200);
      const plain = (await (await get('/api/v1/picks')).json()) as Envelope;
      expect(plain.data.length).toBeGreaterThan(0);
      expect(plain.data.length).toBeLessThanOrEqual(200);
    });
  });

  describe('API v1: errors', () => {
    it('401 without a key, with an unknown key and with a malformed header', async () => {
      expect(await errorOf(await get('/api/v1/picks', null))).toMatchObject({ status: 401 });
      expect(await errorOf(await get('/api/v1/picks', 'not-a-key'))).toMatchObject({ status: 401 });
      const basic = await fetch(`${target().baseUrl}/api/v1/picks`, { headers: { Authorization: `Basic ${target().key}` } });
      expect(basic.status).toBe(401);
      const error = await errorOf(await get('/api/v1/me', 'not-a-key'));
      expect(typeof error.code).toBe('string');
      expect(typeof error.message).toBe('string');
      expect(error.requestId).toMatch(/^req_/);
    });

    it('400 INVALID_FILTERS for each invalid filter', async () => {
      const invalid = [
        'status=finished',
        'result=draw',
        'from=2026-11-01',
        'to=yesterday',
        'limit=0',
        'limit=-3',
        'limit=2.5',
        'limit=abc',
        'colour=red',
        'sport=a&sport=b',
        'sport=',
        'from=2026-11-10T00:00:00Z&to=2026-11-01T00:00:00Z',
        'cursor=bogus',
      ];
      for (const q of invalid) {
        const error = await errorOf(await get(`/api/v1/picks?${q}`));
        expect({ q, ...error }).toMatchObject({ q, status: 400, code: 'INVALID_FILTERS' });
        expect(error.message).toMatch(/filters are invalid/);
      }
    });

    it('400 for a cursor used with other filters; the right filters continue the walk', async () => {
      const first = (await (await get('/api/v1/picks?sport=Football&limit=5')).json()) as Envelope;
      const cursor = encodeURIComponent(first.page.nextCursor!);
      expect(await errorOf(await get(`/api/v1/picks?sport=Tennis&limit=5&cursor=${cursor}`))).toMatchObject({
        status: 400,
        code: 'INVALID_FILTERS',
      });
      const second = (await (await get(`/api/v1/picks?sport=Football&limit=5&cursor=${cursor}`)).json()) as Envelope;
      expect(second.data[0]!.id).not.toBe(first.data[0]!.id);
    });

    it('404 for an unknown id', async () => {
      expect((await get(`/api/v1/picks/${encodeURIComponent('pk:nope:00000~0+0=')}`)).status).toBe(404);
    });

    it('405 for anything but GET', async () => {
      expect((await get('/api/v1/picks', target().key, { method: 'POST' })).status).toBe(405);
    });
  });

  describe('API v1: walking every page', () => {
    const inRange = (r: Record_, from?: string, to?: string) => (!from || r.eventDate! >= from) && (!to || r.eventDate! < to);
    it('every matching record once, in order, for each filter', async () => {
      const days = [...new Set(everything.map((r) => r.eventDate!.slice(0, 10)))].sort();
      const [from, to] = [`${days[Math.floor(days.length / 4)]}T00:00:00.000Z`, `${days[Math.floor(days.length / 2)]}T00:00:00.000Z`];
      const sets: [string, Record<string, string>, (r: Record_) => boolean][] = [
        ['sport', { sport: 'Football' }, (r) => r.sport === 'Football'],
        ['league with &', { league: 'Trinidad & Tobago Premier League' }, (r) => r.league === 'Trinidad & Tobago Premier League'],
        ['status + result', { status: 'settled', result: 'win' }, (r) => r.status === 'settled' && r.result === 'win'],
        ['date range', { from, to }, (r) => inRange(r, from, to)],
        [
          'combined',
          { sport: 'Basketball', status: 'upcoming', from },
          (r) => r.sport === 'Basketball' && r.status === 'upcoming' && inRange(r, from),
        ],
        ['nothing matches', { sport: 'Curling' }, () => false],
      ];
      for (const [name, filters, predicate] of sets) {
        const expected = everything.filter(predicate).map((r) => r.id);
        const actual = (await walk(filters, 37)).map((r) => r.id);
        expect({ name, ids: actual }).toEqual({ name, ids: expected });
        if (name !== 'nothing matches') expect(actual.length).toBeGreaterThan(0);
      }
    });

    it('gives the same set whatever the page size', async () => {
      const big = (await walk({ sport: 'Tennis' }, 200)).map((r) => r.id);
      const small = (await walk({ sport: 'Tennis' }, 7)).map((r) => r.id);
      expect(small).toEqual(big);
      expect(new Set(big).size).toBe(big.length);
    });
  });
}
