import { describe, expect, it } from 'vitest';
import { createUpstreamGate } from '@/lib/picks-api/gate';
import { client, errorBody, failure } from '../support/picks-client';
import { json, type Step } from '../support/stub-fetch';

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
    const { api } = client(
      Array.from({ length: 12 }, () => step),
      { gate: createUpstreamGate(3) },
    );
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

  it('lets pages and exports go before the partner’s systems reading through tokens', async () => {
    const gate = createUpstreamGate(1);
    const order: string[] = [];
    const held = await gate.acquire();
    const waiters = [
      gate.acquire(undefined, Infinity, 'consumer').then((release) => (order.push('consumer'), release())),
      gate.acquire(undefined, Infinity, 'bulk').then((release) => (order.push('bulk'), release())),
      gate.acquire(undefined, Infinity, 'page').then((release) => (order.push('page'), release())),
    ];
    held();
    await Promise.all(waiters);
    expect(order).toEqual(['page', 'bulk', 'consumer']);
  });

  it('keeps a third of its slots for pages: a page never waits behind walks and loaders that fill the rest', async () => {
    const gate = createUpstreamGate(6);
    const granted: string[] = [];
    const take = (priority: 'page' | 'bulk' | 'consumer', name: string) =>
      gate.acquire(undefined, Infinity, priority).then((release) => (granted.push(name), release));
    const background = [take('bulk', 'bulk-1'), take('consumer', 'loader-1'), take('bulk', 'bulk-2'), take('consumer', 'loader-2')];
    const waitingBulk = take('bulk', 'bulk-3');
    const waitingLoader = take('consumer', 'loader-3');
    const releases = await Promise.all(background);
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted).toEqual(['bulk-1', 'loader-1', 'bulk-2', 'loader-2']); // four of six: the other two wait
    expect(gate.stats).toMatchObject({ active: 4, waiting: 2 });
    const pages = await Promise.all([take('page', 'page-1'), take('page', 'page-2')]); // at once, beside them
    expect(gate.stats).toMatchObject({ active: 6, waiting: 2 });
    for (const release of pages) release(); // a page's slot freed: still not theirs
    await new Promise((resolve) => setImmediate(resolve));
    expect(gate.stats).toMatchObject({ active: 4, waiting: 2 });
    releases[0]!(); // a background slot freed: the walk waiting goes before the loader
    (await waitingBulk)();
    releases[1]!();
    (await waitingLoader)();
    expect(granted.slice(6)).toEqual(['bulk-3', 'loader-3']);
    // A gate of two keeps none for pages: walks may take both.
    const small = createUpstreamGate(2);
    await Promise.all([small.acquire(undefined, Infinity, 'bulk'), small.acquire(undefined, Infinity, 'consumer')]);
    expect(small.stats).toMatchObject({ active: 2, waiting: 0 });
  });

  it('sends walks as bulk and single requests as pages', async () => {
    const lanes: string[] = [];
    const gate = createUpstreamGate(4);
    const spy = {
      ...gate,
      acquire: (signal?: AbortSignal, max?: number, priority?: 'page' | 'bulk') => (
        lanes.push(priority ?? 'page'),
        gate.acquire(signal, max, priority)
      ),
    };
    const page = json({ data: [{ id: '1' }], page: { nextCursor: null, hasMore: false }, requestId: 'r' });
    const { api } = client([page, json({ data: [{ id: '1' }], page: { nextCursor: null, hasMore: false }, requestId: 'r' })], {
      gate: spy,
    });
    await api.listPicks({});
    for await (const record of api.walkPicks({})) expect(record.id).toBe('1');
    expect(lanes).toEqual(['page', 'bulk', 'bulk']); // the walk's check of its first page is bulk too
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
