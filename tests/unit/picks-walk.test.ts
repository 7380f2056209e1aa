import { describe, expect, it } from 'vitest';
import { sniffNextCursor } from '@/lib/picks-api/walk';
import { client, failure } from '../support/picks-client';
import { page, type Step } from '../support/stub-fetch';

describe('walking pages', () => {
  it('follows nextCursor with the same filters until the end, in order', async () => {
    const { api, calls } = client([page(['1', '2'], 'c+1='), page(['3'], 'c/2'), page(['4'], null)]);
    const ids: string[] = [];
    for await (const pick of api.walkPicks({ sport: 'Football', status: 'settled' })) ids.push(pick.id!);
    expect(ids).toEqual(['1', '2', '3', '4']);
    // Then the walk's checks: the first page and page 2 asked again (settle.ts), unchanged here.
    expect(calls.map((c) => new URL(c.url).searchParams.get('cursor'))).toEqual([null, 'c+1=', 'c/2', null, 'c+1=']);
    for (const call of calls) {
      const params = new URL(call.url).searchParams;
      expect([params.get('sport'), params.get('status'), params.get('limit')]).toEqual(['Football', 'settled', '200']);
    }
  });

  it('stops on a repeated cursor', async () => {
    const { api } = client([page(['1'], 'same'), page(['2'], 'same'), page(['3'], null)]);
    const error = await failure(
      (async () => {
        for await (const _ of api.walkPicks({}));
      })(),
    );
    expect(error.code).toBe('PAGINATION_BROKEN');
    expect(error.message).toContain('repeated');
  });

  it('stops when hasMore is true but the cursor is null', async () => {
    const { api } = client([page(['1'], null, true)]);
    const error = await failure(
      (async () => {
        for await (const _ of api.walkPicks({}));
      })(),
    );
    expect(error.message).toContain('no cursor');
  });

  it('stops past the page limit', async () => {
    const { api } = client(
      Array.from({ length: 5 }, (_, i) => page([String(i)], `c${i}`)),
      { maxPages: 3 },
    );
    const error = await failure(
      (async () => {
        for await (const _ of api.walkPicks({}));
      })(),
    );
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

describe("guessing the next cursor from a page's bytes", () => {
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
    const broken = new Response('{"data":[{"id":"1"}],"page":{"nextCursor":"c2","hasMore":true}} and then some', {
      headers: { 'Content-Type': 'application/json' },
    });
    let cancelled = false;
    const next: Step = (_url, init) =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => ((cancelled = true), reject(init.signal?.reason))));
    const { api, calls } = client([broken, next]);
    const error = await failure(
      (async () => {
        for await (const _ of api.walkPicks({}));
      })(),
    );
    expect(error.code).toBe('UPSTREAM_MALFORMED');
    expect(calls.map((c) => new URL(c.url).searchParams.get('cursor'))).toEqual([null, 'c2']);
    expect(cancelled).toBe(true); // and the walk's failure cancelled it
  });

  it('drops a wrong guess and asks for the page the parsed body names, in order and without losing a record', async () => {
    // An unknown field named nextCursor after the page block fools the guess: the parsed page block decides.
    const decoy = new Response('{"page":{"nextCursor":"real","hasMore":true},"data":[{"id":"1","extra":{"nextCursor":"decoy"}}]}', {
      headers: { 'Content-Type': 'application/json' },
    });
    let decoyAborted = false;
    const decoyStep: Step = (_url, init) =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => ((decoyAborted = true), reject(init.signal?.reason))));
    const { api, calls } = client([decoy, decoyStep, page(['2'], null)]);
    const ids: string[] = [];
    for await (const p of api.walkPicks({})) ids.push(p.id!);
    expect(ids).toEqual(['1', '2']);
    expect(calls.map((c) => new URL(c.url).searchParams.get('cursor'))).toEqual([null, 'decoy', 'real', null]);
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
    expect(calls).toHaveLength(5); // and the checks at the end: pages 1 and 2 asked again
  });
});
