import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/lib/store/open';
import { capTokenRequests, insertTokenRequests, pruneTokenRequests, tokenRequests, type TokenRequest } from '@/lib/store/token-logs';
import { testToken } from '../support/portal-in-process';
import { storeEngines } from '../support/store-engines';

/**
 * A token's request log on both engines: written in batches, read newest first, filtered by status and path alike,
 * pruned by age and capped per token.
 */

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const request = (n: number, change: Partial<TokenRequest> = {}): TokenRequest => ({
  tokenId: 'tok_a',
  atMs: 1_000_000 + n,
  method: 'GET',
  path: `/api/v1/picks?limit=${n}`,
  status: 200,
  records: n,
  durationMs: 3,
  requestId: `req_${n}`,
  prefix: 'pvt_abcdef',
  ...change,
});

describe.each(storeEngines())('token request logs on $name', (engine) => {
  it('keeps each request, finds them by status class, exact status and part of the path, and prunes by age', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const many = Array.from({ length: 450 }, (_, i) => request(i));
    await insertTokenRequests(store.db, [
      ...many,
      request(500, { status: 403, path: '/api/v1/results?sport=Football' }),
      request(501, { status: 429, path: '/api/v1/search?q=100%_off' }),
      request(502, { status: 503, method: 'MCP', path: '/api/v1/PICKS/pk_1' }),
      request(503, { tokenId: 'tok_b', status: 403 }),
    ]);
    const ids = async (filter: Parameters<typeof tokenRequests>[2], limit = 10) =>
      (await tokenRequests(store.db, 'tok_a', filter, limit)).map((r) => r.requestId);
    expect(await ids({}, 3)).toEqual(['req_502', 'req_501', 'req_500']);
    expect(await ids({ status: 4 })).toEqual(['req_501', 'req_500']);
    expect(await ids({ status: 429 })).toEqual(['req_501']);
    expect(await ids({ status: 5 })).toEqual(['req_502']);
    // Case folded; the filter's % and _ are themselves, not wildcards.
    expect(await ids({ path: 'picks/PK_' })).toEqual(['req_502']);
    expect(await ids({ path: '100%_' })).toEqual(['req_501']);
    expect(await ids({ path: '%' })).toEqual(['req_501']);
    expect(await ids({ status: 2, beforeMs: 1_000_000 + 3 })).toEqual(['req_2', 'req_1', 'req_0']);
    expect((await tokenRequests(store.db, 'tok_a', { status: 2 }, 1_000)).length).toBe(450);
    expect(await pruneTokenRequests(store.db, 1_000_000 + 100)).toBe(100);
    expect((await tokenRequests(store.db, 'tok_a', {}, 1_000)).length).toBe(353);
  });

  it('keeps at most the newest requests of each token, whatever the others keep', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const a = (await testToken(store, 'ed@example.com')).token.id;
    const b = (await testToken(store, 'ed@example.com')).token.id;
    await insertTokenRequests(store.db, [
      ...Array.from({ length: 30 }, (_, i) => request(i, { tokenId: a })),
      ...Array.from({ length: 5 }, (_, i) => request(i, { tokenId: b, requestId: `b_${i}` })),
    ]);
    expect(await capTokenRequests(store.db, 10)).toBe(20);
    const kept = await tokenRequests(store.db, a, {}, 100);
    expect(kept.map((r) => r.requestId)).toEqual(Array.from({ length: 10 }, (_, i) => `req_${29 - i}`));
    expect(await tokenRequests(store.db, b, {}, 100)).toHaveLength(5);
    expect(await capTokenRequests(store.db, 10)).toBe(0);
  });
});
