import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { portalInProcess } from '../support/portal-in-process';

/**
 * Pages by number on /picks and /results (lib/records/jump.ts, what the records view reads) against a sandbox
 * over real HTTP whose own default page is 37 records, not the portal's 50 (the spec leaves it unstated): for
 * every page size, page 2 by number starts with the record after page 1's last, Next from page 1 lands on the same
 * records, and page 3 follows on — no record is left out between pages.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 2000, defaultPageSize: 37 });
  const baseUrl = await sandbox.listen(0);
  await portalInProcess(baseUrl, KEY);
});
afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  sandbox.close();
});

describe('pages by number against an upstream whose default page differs from the portal’s', () => {
  it.each([undefined, 25, 100, 200])('leave no record out at %s a page (undefined: none asked, the portal’s 50)', async (limit) => {
    const { openRecordsPage } = await import('@/lib/records/jump');
    const { createPicksClient } = await import('@/lib/picks-api/client');
    const size = limit ?? 50;
    const every: string[] = [];
    for await (const pick of createPicksClient({ baseUrl: process.env.PICKS_API_BASE_URL!, apiKey: KEY }).walkPicks({ limit: 200 }))
      every.push(pick.id!);
    expect(every.length).toBeGreaterThan(3 * size);
    const ids = (opened: Awaited<ReturnType<typeof openRecordsPage>>) => opened.page.rows.map((row) => row.id);
    const first = await openRecordsPage('picks', { limit }, null);
    expect(ids(first)).toEqual(every.slice(0, size));
    const second = await openRecordsPage('picks', { limit }, 2);
    expect(second.filters.limit).toBe(size);
    expect(ids(second)).toEqual(every.slice(size, 2 * size));
    // Next from page 1 (its cursor) is page 2 by number; and page 3 follows it.
    expect(ids(await openRecordsPage('picks', { limit, cursor: first.page.nextCursor! }, null))).toEqual(ids(second));
    expect(ids(await openRecordsPage('picks', { limit }, 3))).toEqual(every.slice(2 * size, 3 * size));
  });
});
