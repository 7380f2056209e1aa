import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, scriptedFetch } from '../support/stub-fetch';

/** Pages share one /me answer for PICKS_ME_CACHE_SECONDS; failures are never kept; /licence always asks. */

const me = (leagues: string[]) => json({ partner: 'Northwind', licence: { id: 'LIC-7', leagues } });

async function load(seconds: string) {
  vi.resetModules();
  vi.stubEnv('PICKS_API_BASE_URL', 'http://127.0.0.1:1');
  vi.stubEnv('PICKS_API_KEY', 'unit-key');
  vi.stubEnv('PICKS_API_MAX_RETRIES', '0');
  vi.stubEnv('PICKS_ME_CACHE_SECONDS', seconds);
  return import('@/lib/picks-api/portal');
}

describe('the recent licence', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'] }));
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
    vi.unstubAllGlobals();
  });

  it('asks /me once for concurrent and later pages within the time, then again', async () => {
    const { fetch, calls } = scriptedFetch([me(['EPL']), me(['EPL', 'NBA'])]);
    vi.stubGlobal('fetch', fetch);
    const portal = await load('30');
    const [a, b] = await Promise.all([portal.licenceOrNull(), portal.licenceOrNull()]);
    expect(a?.leagues).toEqual(['EPL']);
    expect(b).toEqual(a);
    vi.setSystemTime(Date.now() + 29_000);
    expect((await portal.licenceOrNull())?.leagues).toEqual(['EPL']);
    expect(calls).toHaveLength(1);
    vi.setSystemTime(Date.now() + 2_000);
    expect((await portal.licenceOrNull())?.leagues).toEqual(['EPL', 'NBA']);
    expect(calls).toHaveLength(2);
  });

  it('keeps no failure: the next page asks again', async () => {
    const { fetch, calls } = scriptedFetch([json({ error: { code: 'LICENCE_UNAVAILABLE', message: 'suspended' } }, 403), me(['EPL'])]);
    vi.stubGlobal('fetch', fetch);
    const portal = await load('30');
    expect(await portal.licenceOrNull()).toBeNull();
    expect((await portal.licenceOrNull())?.leagues).toEqual(['EPL']);
    expect(calls).toHaveLength(2);
  });

  it('0 turns it off, and the licence page always asks', async () => {
    const { fetch, calls } = scriptedFetch([me(['A']), me(['B']), me(['C'])]);
    vi.stubGlobal('fetch', fetch);
    const portal = await load('0');
    expect((await portal.licenceOrNull())?.leagues).toEqual(['A']);
    expect((await portal.licenceOrNull())?.leagues).toEqual(['B']);
    const licence = await portal.getLicence();
    expect(licence.ok && licence.value.summary.leagues).toEqual(['C']);
    expect(calls).toHaveLength(3);
  });
});

describe('the recent gateway health', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'] }));
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
    vi.unstubAllGlobals();
  });

  it('asks /health once per HEALTH_REUSE_MS for every page and probe, failures included, then again', async () => {
    const { fetch, calls } = scriptedFetch([
      json({ status: 'ok' }),
      json({ error: { code: 'UPSTREAM_ERROR', message: 'down' } }, 500),
      json({ status: 'ok' }),
    ]);
    vi.stubGlobal('fetch', fetch);
    const portal = await load('30');
    const first = portal.getRecentHealth();
    const [a, b] = await Promise.all([first.health, portal.getRecentHealth().health]);
    expect(a.ok && a.value.status).toBe('ok');
    expect(b).toBe(a);
    vi.setSystemTime(first.checkedAt + portal.HEALTH_REUSE_MS - 1);
    expect(portal.getRecentHealth().checkedAt).toBe(first.checkedAt);
    expect(calls).toHaveLength(1);

    vi.setSystemTime(first.checkedAt + portal.HEALTH_REUSE_MS);
    const failed = portal.getRecentHealth();
    expect(failed.checkedAt).toBe(first.checkedAt + portal.HEALTH_REUSE_MS);
    const down = await failed.health;
    expect(!down.ok && down.error.code).toBe('UPSTREAM_ERROR');
    expect(await portal.getRecentHealth().health).toBe(down); // kept for its few seconds, like a success
    expect(calls).toHaveLength(2);

    vi.setSystemTime(Date.now() + portal.HEALTH_REUSE_MS);
    expect((await portal.getRecentHealth().health).ok).toBe(true);
    expect(calls).toHaveLength(3);
  });
});
