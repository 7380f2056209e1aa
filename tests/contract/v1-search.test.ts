import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@/lib/store/open';
import type { ApiToken } from '@/lib/store/tokens';
import type { TokenScope } from '@/lib/vocabulary/tokens';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { answerChecker } from '../support/openapi-check';
import { pollSandbox, portalInProcess, testToken } from '../support/portal-in-process';

/**
 * GET /api/v1/search through API v1's handler, answered from the index of the licensed set that the change feed's
 * polls of the sandbox (over real HTTP, on the embedded store) fill: scoped by the token like every answer — its
 * sports narrow what is found (a filter outside them is 403, naming what it may read), its content takes fields
 * out, each record is one of its daily records; every wrong parameter named at once; each answer as the OpenAPI
 * document describes it.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
let sandbox: Sandbox;
let store: Store;
const bearer = new Map<string, string>();
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 3000 });
  const baseUrl = await sandbox.listen(0);
  store = await portalInProcess(baseUrl, KEY);
  await pollSandbox(store, baseUrl, KEY, () => sandbox.controls.now());
  const { putUser } = await import('@/lib/store/users');
  await putUser(store.db, { email: 'ed@example.com', role: 'editor', passwordHash: 'x' });
});

afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  sandbox.close();
});

async function tokenOf(scope: Partial<TokenScope>, dailyRecords = 1_000_000): Promise<ApiToken> {
  const made = await testToken(store, 'ed@example.com', { scope: { content: ['picks', 'results'], ...scope }, dailyRecords });
  bearer.set(made.token.id, made.secret);
  return made.token;
}

async function search(token: ApiToken, query: string) {
  const { serveV1OnNext } = await import('@/lib/api-v1/http');
  const { v1Document } = await import('@/lib/api-v1/openapi');
  const url = `http://portal.test/api/v1/search?${query}`;
  const res = await serveV1OnNext(new Request(url, { headers: { authorization: `Bearer ${bearer.get(token.id)}` } }));
  const json = (await res.json()) as Json;
  expect(answerChecker(v1Document() as object)('GET', url, res.status, json)).toBeNull();
  return { status: res.status, json };
}

describe('GET /api/v1/search', () => {
  it('finds within the token’s sports only, and refuses a sport outside them naming the ones it may read', async () => {
    const everything = await tokenOf({});
    const all = await search(everything, 'sort=eventDate&dir=asc&limit=200');
    expect(all.status).toBe(200);
    const sports = [...new Set((all.json.data as { sport: string }[]).map((r) => r.sport))];
    expect(sports.length).toBeGreaterThan(1);
    const one = await tokenOf({ sports: [sports[0]!] });
    const team = (all.json.data as { sport: string; homeTeam: string }[]).find((r) => r.sport === sports[0])!.homeTeam;
    const found = await search(one, `q=${encodeURIComponent(team.toUpperCase())}&limit=200`);
    expect(found.status).toBe(200);
    expect(found.json.data.length).toBeGreaterThan(0);
    expect((found.json.data as { sport: string }[]).every((r) => r.sport === sports[0])).toBe(true);
    expect(found.json.page).toMatchObject({ number: 1, size: 200, total: found.json.data.length, lastPage: 1 });
    const outside = await search(one, `q=a&sport=${encodeURIComponent(sports[1]!)}`);
    expect(outside.status).toBe(403);
    expect(outside.json.error).toMatchObject({ code: 'OUT_OF_SCOPE', message: expect.stringContaining(`may read ${sports[0]} only`) });
  });

  it('takes out the fields of a content the token lacks, and counts each record in its quota', async () => {
    const picksOnly = await tokenOf({ content: ['picks'] }, 3);
    const found = await search(picksOnly, 'sort=eventDate&dir=asc&limit=50');
    expect(found.status).toBe(200);
    expect(found.json.data).toHaveLength(3);
    expect((found.json.data as object[]).some((r) => 'result' in r || 'settledAt' in r)).toBe(false);
    const spent = await search(picksOnly, 'sort=eventDate');
    expect(spent.status).toBe(429);
    expect(spent.json.error.code).toBe('QUOTA_EXCEEDED');
    const refused = await search(picksOnly, 'kind=results&sort=eventDate');
    expect(refused.json.error).toMatchObject({ code: 'OUT_OF_SCOPE', message: 'This token may not read results.' });
  });

  it('names every wrong parameter at once, and offers the orders the index takes', async () => {
    const { V1_SEARCH_SORTS } = await import('@/lib/api-v1/shapes');
    const { SORT_COLUMNS } = await import('@/lib/records/search');
    expect([...V1_SEARCH_SORTS]).toEqual(['relevance', ...SORT_COLUMNS]);
    const token = await tokenOf({});
    const bad = await search(token, 'sort=colour&dir=up&page=0&limit=900&cursor=x');
    expect(bad.status).toBe(400);
    for (const said of [
      'cursor is not a parameter',
      'sort must be relevance or one of',
      'dir must be asc or desc',
      'page must be a whole number',
      'limit must be a whole number',
    ])
      expect(bad.json.error.message).toContain(said);
  });

  it('pages a column with empty values whole after another order was counted (its own count of the valued)', async () => {
    const token = await tokenOf({});
    const first = await search(token, 'sort=eventDate&dir=asc&limit=200');
    const ids = (first.json.data as { id: string }[]).slice(0, 7).map((r) => r.id);
    await store.db.updateTable('record_index').set({ odds: null }).where('pick_id', 'in', ids).execute();
    const { keepIndex } = await import('@/lib/records/index-keeper');
    await keepIndex(store.db); // the same history write: the counts cached for event dates stay in force
    await search(token, 'sort=eventDate&dir=asc&limit=200');
    const whole: string[] = [];
    for (let page = 1; ; page += 1) {
      const answer = await search(token, `sort=odds&dir=asc&limit=200&page=${page}`);
      whole.push(...(answer.json.data as { id: string }[]).map((r) => r.id));
      if (page >= answer.json.page.lastPage) break;
    }
    expect(new Set(whole).size).toBe(whole.length);
    expect(whole.length).toBe(first.json.page.total);
    expect(whole.slice(-ids.length).sort()).toEqual([...ids].sort());
  });
});
