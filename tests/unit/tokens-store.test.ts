import { afterEach, describe, expect, it } from 'vitest';
import { hashToken } from '@/lib/tokens/access';
import {
  addUsage,
  getToken,
  insertToken,
  listTokens,
  revokeToken,
  tokenByHash,
  updateToken,
  usageOf,
  usageSummary,
  type ApiToken,
} from '@/lib/store/tokens';
import { openStore, type Store } from '@/lib/store/open';
import { storeEngines } from '../support/store-engines';

/** API tokens in the store, both engines: only a hash kept, revocation, use summed across instances. */

const T = Date.parse('2026-11-20T12:00:00Z');
const token = (id: string, owner = 'ed@example.com'): ApiToken => ({
  id,
  name: `consumer ${id}`,
  owner,
  ownerSinceMs: T,
  prefix: 'pvt_abcdef',
  scope: { content: ['picks'], sports: ['Football'], leagues: [], from: null, to: null },
  expiresMs: T + 86_400_000,
  ratePerMinute: 60,
  dailyRecords: 1_000,
  createdMs: T,
  createdBy: owner,
  updatedMs: T,
  revokedMs: null,
  revokedBy: null,
});
const use = (requests: number, records: number, lastMs: number, lastAddress: string) => ({
  requests,
  records,
  bytes: records * 100,
  clientErrors: 1,
  throttled: 0,
  lastMs,
  lastAddress,
});

describe.each(storeEngines())('API tokens on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  async function fresh() {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    return store;
  }

  it('finds a token by its hash alone, changes and revokes it once, lists by owner', async () => {
    const { db } = await fresh();
    await insertToken(db, token('tok_000000000001'), hashToken('pvt_secret-one'));
    await insertToken(db, token('tok_000000000002', 'admin@example.com'), hashToken('pvt_secret-two'));
    expect((await tokenByHash(db, hashToken('pvt_secret-one')))?.id).toBe('tok_000000000001');
    expect(await tokenByHash(db, 'pvt_secret-one')).toBeNull(); // the token itself is nowhere
    const stored = JSON.stringify(await db.selectFrom('api_tokens').selectAll().execute());
    expect(stored).not.toContain('pvt_secret');
    await updateToken(db, 'tok_000000000001', { ...token('tok_000000000001'), name: 'renamed', ratePerMinute: 5, updatedMs: T + 1 });
    expect(await getToken(db, 'tok_000000000001')).toMatchObject({ name: 'renamed', ratePerMinute: 5, updatedMs: T + 1 });
    expect(await revokeToken(db, 'tok_000000000001', 'admin@example.com', T + 2)).toBe(true);
    expect(await revokeToken(db, 'tok_000000000001', 'admin@example.com', T + 3)).toBe(false);
    expect(await getToken(db, 'tok_000000000001')).toMatchObject({ revokedMs: T + 2, revokedBy: 'admin@example.com' });
    expect((await listTokens(db, 'ed@example.com')).map((t) => t.id)).toEqual(['tok_000000000001']);
    expect((await listTokens(db, null)).length).toBe(2);
  });

  it('sums a day’s use from every instance, keeping the latest address', async () => {
    const { db } = await fresh();
    await addUsage(db, 'tok_000000000001', '2026-11-20', use(3, 300, T + 10, '192.0.2.1'));
    await addUsage(db, 'tok_000000000001', '2026-11-20', use(2, 50, T + 5, '192.0.2.9')); // an instance that flushed late
    await addUsage(db, 'tok_000000000001', '2026-11-21', use(1, 10, T + 86_400_000, '192.0.2.2'));
    expect(await usageOf(db, 'tok_000000000001', '2026-11-20')).toEqual([
      {
        day: '2026-11-20',
        requests: 5,
        records: 350,
        bytes: 35_000,
        clientErrors: 2,
        throttled: 0,
        lastMs: T + 10,
        lastAddress: '192.0.2.1',
      },
      {
        day: '2026-11-21',
        requests: 1,
        records: 10,
        bytes: 1_000,
        clientErrors: 1,
        throttled: 0,
        lastMs: T + 86_400_000,
        lastAddress: '192.0.2.2',
      },
    ]);
    const summary = await usageSummary(db, '2026-11-21');
    expect(summary.get('tok_000000000001')).toMatchObject({ lastMs: T + 86_400_000, today: { requests: 1, records: 10 } });
  });
});
