import { beforeAll, describe, expect, it } from 'vitest';
import type { PickFilters } from '@/lib/picks-api/filters';
import { createPicksClient } from '@/lib/picks-api/client';
import type { Pick } from '@/lib/picks-api/schemas';
import { createSandbox } from '@/sandbox/server';
import { sandboxOverHttp } from '../support/sandbox';
import { v1Contract } from '../support/v1-contract';

/**
 * The sandbox over real HTTP: the contract every API v1 keeps (tests/support/v1-contract.ts), then the
 * portal's own client against it — the licence dimensions, lifecycle, throttling, each way a key is refused. Expected sets are derived from what the API itself returns
 * (one unfiltered walk, filtered here by the documented semantics), not from the sandbox's internals.
 */

const NOW = Date.parse('2026-11-22T12:00:00Z');
const upstream = sandboxOverHttp({ now: () => NOW });
let everything: Pick[];

const api = (key = 'sandbox-full-key', extra: Parameters<typeof createPicksClient>[0]['retry'] = {}) =>
  createPicksClient({ baseUrl: upstream.baseUrl, apiKey: key, retry: { baseDelayMs: 5, maxDelayMs: 20, ...extra } });

async function walk(key: string, filters: PickFilters, pageSize = 200, kind: 'picks' | 'results' = 'picks'): Promise<Pick[]> {
  const client = api(key);
  const out: Pick[] = [];
  for await (const pick of kind === 'picks' ? client.walkPicks(filters, { pageSize }) : client.walkResults(filters, { pageSize }))
    out.push(pick);
  return out;
}

const raw = (path: string, key: string | null = 'sandbox-full-key') =>
  fetch(`${upstream.baseUrl}${path}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });

beforeAll(async () => {
  everything = await walk('sandbox-full-key', {});
});

// The contract every API v1 keeps (the portal's /api/v1 runs it too: tests/e2e/tokens.spec.ts); below, the sandbox's own.
v1Contract({ describe, it, beforeAll, expect }, () => ({ baseUrl: upstream.baseUrl, key: 'sandbox-full-key' }));

describe('seeded data', () => {
  it('is large and varied enough to show the portal', () => {
    expect(everything.length).toBeGreaterThanOrEqual(5000);
    expect(new Set(everything.map((p) => p.sport)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(everything.map((p) => p.league)).size).toBeGreaterThanOrEqual(12);
    expect(everything.some((p) => p.isPlayerPick)).toBe(true);
    expect(everything.some((p) => p.homeTeamLogoUrl === null)).toBe(true);
    expect(everything.some((p) => !('homeNationality' in p))).toBe(true);
    expect(new Set(everything.map((p) => p.status))).toEqual(new Set(['upcoming', 'live', 'settled', 'void']));
    expect(new Set(everything.map((p) => p.id)).size).toBe(everything.length);
  });

  it('is deterministic for a seed and day', () => {
    const again = createSandbox({ now: () => NOW, rateLimit: null });
    expect(again.records.map((r) => r.id)).toEqual(upstream.sandbox.records.map((r) => r.id));
  });

  it('serves the logos it links to', async () => {
    const logo = everything.find((p) => p.homeTeamLogoUrl)!.homeTeamLogoUrl!;
    const res = await fetch(logo);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(await res.text()).toContain('<svg');
  });
});

describe('endpoints', () => {
  it('GET /me describes the partner and licence', async () => {
    const me = await api().me();
    expect(me).toMatchObject({ partner: { name: 'Northwind Media Group' }, licence: { status: 'active', contentMode: 'full' } });
    expect(String(me.requestId)).toMatch(/^req_[0-9a-f]+$/);
  });

  it('GET /picks/:id returns the record, for ids with : ~ + =', async () => {
    const target = everything[123]!;
    expect(target.id).toMatch(/[:~+=]/);
    expect(await api().getPick(target.id!)).toEqual(target);
  });

  it('GET /picks/:id as a bare record is read the same', async () => {
    const bare = createSandbox({ now: () => NOW, rateLimit: null, pickShape: 'bare' });
    const url = await bare.listen(0);
    try {
      const target = everything[7]!;
      const res = await fetch(`${url}/api/v1/picks/${encodeURIComponent(target.id!)}`, {
        headers: { Authorization: 'Bearer sandbox-full-key' },
      });
      expect(await res.json()).toHaveProperty('id', target.id);
      const pick = await createPicksClient({ baseUrl: url, apiKey: 'sandbox-full-key' }).getPick(target.id!);
      expect(pick.id).toBe(target.id);
    } finally {
      await bare.close();
    }
  });

  it('has a default page size of 50', async () => {
    const plain = await (await raw('/api/v1/picks')).json();
    expect(plain.data).toHaveLength(50);
  });
});

describe('error codes', () => {
  const errorOf = async (res: Response) => ({ status: res.status, ...(await res.json()).error });

  it('401 without a key and with an unknown key', async () => {
    expect(await errorOf(await raw('/api/v1/picks', null))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await errorOf(await raw('/api/v1/picks', 'not-a-key'))).toMatchObject({ status: 401 });
    await expect(api('not-a-key').me()).rejects.toMatchObject({ code: 'UPSTREAM_UNAUTHORIZED' });
  });

  it('403 for a suspended licence', async () => {
    expect(await errorOf(await raw('/api/v1/picks', 'sandbox-suspended-key'))).toMatchObject({ status: 403 });
    await expect(api('sandbox-suspended-key').listPicks({})).rejects.toMatchObject({ code: 'LICENCE_UNAVAILABLE', status: 403 });
  });

  it('404 for an unknown id and for a record outside the licence', async () => {
    await expect(api().getPick('pk:nope:00000~0+0=')).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const tennis = everything.find((p) => p.sport === 'Tennis')!;
    await expect(api('sandbox-football-key').getPick(tennis.id!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('walking every page', () => {
  it('sends cursors that need encoding (+ / =) and they round-trip', async () => {
    const cursors: string[] = [];
    for await (const page of api().walkPickPages({}, { pageSize: 50 })) if (page.page.nextCursor) cursors.push(page.page.nextCursor);
    expect(cursors.some((c) => /[+/=]/.test(c))).toBe(true);
  });
});

describe('licence dimensions', () => {
  it('sport and league', async () => {
    const picks = await walk('sandbox-football-key', {});
    expect(new Set(picks.map((p) => p.league))).toEqual(new Set(['Premier League', 'Trinidad & Tobago Premier League']));
    expect(picks.map((p) => p.id)).toEqual(
      everything.filter((p) => p.league === 'Premier League' || p.league === 'Trinidad & Tobago Premier League').map((p) => p.id),
    );
  });

  it('date window', async () => {
    const me = await api('sandbox-window-key').me();
    const { from, to } = (me.licence as { dateWindow: { from: string; to: string } }).dateWindow;
    const picks = await walk('sandbox-window-key', {});
    expect(picks.length).toBeGreaterThan(0);
    expect(picks.every((p) => p.eventDate! >= from && p.eventDate! < to)).toBe(true);
    expect(picks.length).toBe(everything.filter((p) => p.eventDate! >= from && p.eventDate! < to).length);
  });

  it('content mode removes or nulls fields', async () => {
    const picks = await walk('sandbox-reduced-key', { sport: 'Tennis' });
    expect(picks.length).toBeGreaterThan(0);
    for (const pick of picks) {
      expect('reasoning' in pick).toBe(false);
      expect('confidenceTier' in pick).toBe(false);
      expect(pick.probability).toBeNull();
      expect(pick.attribution).toBeTruthy();
    }
  });

  it('channel', async () => {
    const picks = await walk('sandbox-channel-key', {});
    expect(picks.length).toBeGreaterThan(0);
    expect(picks.length).toBeLessThan(everything.length);
  });
});

describe('lifecycle follows the clock', () => {
  it('moves upcoming → live → settled, changing publishedAt', async () => {
    let now = NOW;
    const moving = createSandbox({ now: () => now, rateLimit: null });
    const url = await moving.listen(0);
    try {
      const client = createPicksClient({ baseUrl: url, apiKey: 'sandbox-full-key' });
      const upcoming = (await client.listPicks({ status: 'upcoming', limit: 200 })).data.find((p) => p.status === 'upcoming')!;
      const start = Date.parse(upcoming.eventDate!);
      now = start + 60_000;
      const live = await client.getPick(upcoming.id!);
      expect(live.status === 'live' || live.status === 'void').toBe(true);
      now = start + 6 * 3_600_000;
      const later = await client.getPick(upcoming.id!);
      expect(['settled', 'void']).toContain(later.status);
      expect(later.publishedAt).not.toBe(upcoming.publishedAt);
      if (later.status === 'settled') expect(later.result && later.settledAt).toBeTruthy();
    } finally {
      await moving.close();
    }
  });
});

describe('throttling', () => {
  it('answers 429 with Retry-After past the budget, and the client recovers', async () => {
    const tight = createSandbox({ now: Date.now, rateLimit: { limit: 4, windowMs: 1000 }, picks: 1200 });
    const url = await tight.listen(0);
    try {
      const burst = await Promise.all(
        Array.from({ length: 6 }, () => fetch(`${url}/api/v1/health`, { headers: { Authorization: 'Bearer sandbox-full-key' } })),
      );
      const throttled = burst.filter((r) => r.status === 429);
      expect(throttled.length).toBe(2);
      expect(Number(throttled[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await throttled[0]!.json()).error.requestId).toMatch(/^req_/);

      await new Promise((r) => setTimeout(r, 1100));
      const client = createPicksClient({ baseUrl: url, apiKey: 'sandbox-full-key' });
      const ids: string[] = [];
      for await (const pick of client.walkPicks({}, { pageSize: 100 })) ids.push(pick.id!);
      tight.setRateLimit(null);
      const reference: string[] = [];
      for await (const pick of client.walkPicks({}, { pageSize: 200 })) reference.push(pick.id!);
      expect(reference.length).toBeGreaterThan(400); // > 4 pages of 100: the budget was exceeded and absorbed
      expect(ids).toEqual(reference);
    } finally {
      await tight.close();
    }
  });
});
