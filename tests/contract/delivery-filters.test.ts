import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerContext } from '@/lib/deliveries/scheduler';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { addOwners } from '../support/new-delivery';

/**
 * Deliveries that cannot be set up wrong, against the sandbox over real HTTP with a restricted licence
 * (Football; Premier League and Trinidad & Tobago Premier League): every wrong filter named in one 400
 * with the allowed values and the nearest one; a preview whose count equals a direct walk of the same
 * filters; runs that deliver 0 records marked empty, and three in a row raised like failures.
 */

const KEY = 'sandbox-football-key';
const EDITOR = { email: 'ana@example.com', role: 'editor', name: null } as never;
let sandbox: Sandbox;
let upstream = '';
let responses: typeof import('@/lib/http/deliveries');

beforeAll(async () => {
  sandbox = createSandbox({ rateLimit: null });
  upstream = await sandbox.listen(0);
  const dir = await mkdtemp(path.join(tmpdir(), 'delivery-filters-'));
  Object.assign(process.env, {
    DATABASE_URL: '',
    PORTAL_DATA_DIR: dir,
    PORTAL_USERS_FILE: path.join(dir, 'none.json'),
    PICKS_API_BASE_URL: upstream,
    PICKS_API_KEY: KEY,
    DELIVERY_ROOT: path.join(dir, 'out'),
    DELIVERY_SPOOL_MIN_FREE_MB: '1',
  });
  responses = await import('@/lib/http/deliveries');
});
afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  await sandbox.close();
});

/** What withRole does with a thrown AppError: the answer a client gets. */
const answer = (pending: Promise<Response>) =>
  pending.catch(async (error: unknown) => (await import('@/lib/errors')).toAppError(error).toResponse());

const post = (body: unknown) =>
  answer(
    responses.createResponse(
      new Request('http://portal.test/api/deliveries', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }),
      EDITOR,
    ),
  );

const delivery = (filters: Record<string, string>, change: Record<string, unknown> = {}) => ({
  name: `Daily ${Math.random().toString(36).slice(2, 8)}`,
  kind: 'picks',
  format: 'csv',
  schedule: '0 6 * * *',
  filters,
  destination: { type: 'directory', folder: 'partner' },
  ...change,
});

describe('a delivery that cannot be set up wrong', () => {
  it('refuses an unknown sport, an unlicensed league, a misspelled status and a bad date in one 400 naming all four', async () => {
    const res = await post(delivery({ sport: 'Footbal', league: 'NBA', status: 'setled', from: 'yesterday' }));
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: Record<string, string> } };
    expect(error.code).toBe('INVALID_DELIVERY');
    expect(Object.keys(error.details).sort()).toEqual(['filters.from', 'filters.league', 'filters.sport', 'filters.status']);
    expect(error.details['filters.sport']).toBe('is "Footbal", not a licensed sport. Did you mean "Football"? Allowed: Football.');
    expect(error.details['filters.league']).toBe(
      'is "NBA", not a licensed league. Allowed: Premier League, Trinidad & Tobago Premier League.',
    );
    expect(error.details['filters.status']).toMatch(
      /^is "setled", not a status\. Did you mean "settled"\? Allowed: upcoming, live, settled, void\.$/,
    );
    expect(error.details['filters.from']).toMatch(/^is "yesterday", not a date\. Did you mean "today-1d"\?/);
    // The message says all four too, in plain words, for clients that show only the message.
    for (const field of ['filters.sport', 'filters.league', 'filters.status', 'filters.from']) expect(error.message).toContain(field);
  });

  it('names every wrong field at once, in plain words, with filters and destination checked beside the schema', async () => {
    const res = await post(
      delivery({ sport: 'football' }, { format: 'xml', schedule: undefined, colour: 'red', destination: { type: 'ftp' } }),
    );
    const { error } = (await res.json()) as { error: { details: Record<string, string> } };
    expect(error.details).toEqual({
      colour: 'is not a field of a delivery (its fields: name, kind, format, filters, schedule, destination, encryptTo, corrections)',
      format: 'must be csv, json, jsonl (JSON Lines) or parquet',
      schedule: 'is required',
      'destination.type': 'must be directory, sftp, webhook, s3 or postgres',
      'filters.sport': 'is "football", not a licensed sport. Did you mean "Football"? Allowed: Football.',
    });
  });

  it('refuses Parquet for a changes delivery and with corrections, naming the field', async () => {
    const changes = await post(delivery({}, { kind: 'changes', format: 'parquet' }));
    expect(((await changes.json()) as { error: { details: Record<string, string> } }).error.details).toEqual({
      format: 'parquet is for picks and results deliveries: a changes delivery is csv, json or jsonl',
    });
    const corrected = await post(delivery({ sport: 'Football' }, { format: 'parquet', corrections: true }));
    expect(((await corrected.json()) as { error: { details: Record<string, string> } }).error.details).toEqual({
      corrections: 'are files of csv, json or jsonl: a parquet delivery sends its whole set each run instead',
    });
  });

  it('accepts licensed values, and keeps a delivery with a wrong value from being saved at all', async () => {
    const good = await post(delivery({ sport: 'Football', league: 'Premier League', status: 'settled', from: 'today-7d' }));
    expect(good.status).toBe(201);
    const list = (await (await responses.listResponse(EDITOR)).json()) as { data: { filters: Record<string, string> }[] };
    expect(list.data.map((d) => d.filters.sport)).toEqual(['Football']);
  });
});

describe('the preview', () => {
  it('counts what the filters match now, equal to a direct walk of the same filters', async () => {
    const query = new URLSearchParams({ kind: 'picks', sport: 'Football', league: 'Premier League', from: 'today-3d', to: 'today+4d' });
    const res = await responses.previewResponse(new Request(`http://portal.test/api/deliveries/preview?${query}`), EDITOR);
    expect(res.status).toBe(200);
    const preview = (await res.json()) as { records: number; more: boolean; filters: Record<string, string> };
    const { createPicksClient } = await import('@/lib/picks-api/client');
    const ids: string[] = [];
    for await (const pick of createPicksClient({ baseUrl: upstream, apiKey: KEY }).walkPicks(preview.filters)) ids.push(pick.id!);
    expect(ids.length).toBeGreaterThan(5);
    expect(preview).toMatchObject({ records: ids.length, more: false });
    expect(preview.filters.from).toBe(new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 3 * 86_400_000).toISOString());
  });

  it('refuses filters that would be refused on save', async () => {
    const wrong = await answer(
      responses.previewResponse(new Request('http://portal.test/api/deliveries/preview?kind=picks&sport=Tennis'), EDITOR),
    );
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: { details: Record<string, string> } }).error.details).toEqual({
      'filters.sport': 'is "Tennis", not a licensed sport. Allowed: Football.',
    });
  });
});

describe('empty runs', () => {
  it('marks a run that delivers 0 records, and raises three in a row like failures', async () => {
    const { getStore } = await import('@/lib/store');
    const store = await import('@/lib/store/deliveries');
    const api = await import('@/lib/deliveries/scheduler');
    const db = (await getStore()).db;
    const ctx: SchedulerContext = {
      db,
      instance: 'a',
      settings: { root: process.env.DELIVERY_ROOT!, secretKey: null, allowPrivate: true },
    };
    const now = new Date().toISOString();
    await addOwners(db);
    await store.insertDelivery(db, {
      id: 'dlv_00000000000000e1',
      name: 'Nothing in 2020',
      kind: 'picks',
      format: 'csv',
      filters: { sport: 'Football', from: '2020-01-01', to: '2020-01-02' },
      schedule: '0 6 * * *',
      destination: { type: 'directory', folder: 'empty' },
      secret: null,
      createdBy: 'ana@example.com',
      createdAt: now,
      updatedAt: now,
      lastDueMs: Date.now(),
    });
    const view = async () =>
      ((await (await responses.listResponse(EDITOR)).json()) as { data: Record<string, unknown>[] }).data.find(
        (d) => d.name === 'Nothing in 2020',
      )!;
    const { deliveryAlerts } = await import('@/lib/deliveries/view');
    for (let n = 1; n <= 3; n += 1) {
      const delivery = (await store.findDelivery(db, 'dlv_00000000000000e1'))!;
      await (
        await api.runNow(ctx, delivery)
      ).done;
      expect(await view()).toMatchObject({ emptyRunsInARow: n, deliversNothing: n === 3 });
      expect((await deliveryAlerts())!.empty).toEqual(n === 3 ? ['Nothing in 2020'] : []);
    }
    const runs = (await (await responses.runsResponse('dlv_00000000000000e1')).json()) as { data: Record<string, unknown>[] };
    expect(runs.data).toHaveLength(3);
    for (const run of runs.data) expect(run).toMatchObject({ outcome: 'complete', records: 0, empty: true });
  });
});
