import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { appendAudit, pruneAudit, readAudit, verifyAudit, type AuditInput } from '@/lib/store/audit';
import { openStore, type Store } from '@/lib/store/open';
import { storeEngines } from '../support/store-engines';

/** The audit trail's chain on both engines: appended in order, verified, tampering found, pruned with an anchor. */

const execFileAsync = promisify(execFile);
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const entry = (change: Partial<AuditInput> = {}): AuditInput => ({
  actor: 'ana@example.com',
  role: 'editor',
  action: 'export.picks',
  target: 'picks.csv',
  filters: { sport: 'Tennis' },
  outcome: 'complete',
  errorCode: null,
  records: 120,
  bytes: 45_678,
  sha256: 'ab'.repeat(32),
  durationMs: 812,
  requestIds: ['req_1', 'req_2'],
  address: '198.51.100.7',
  licence: 'LIC-1',
  ...change,
});

describe.each(storeEngines())('the audit trail on $name', (engine) => {
  async function fresh() {
    const target = await engine.fresh();
    const store = await openStore(target);
    opened.push(store);
    return { store, target };
  }

  it('appends entries in a chain that verifies, and reads them back filtered, in order', async () => {
    const { store } = await fresh();
    const first = await appendAudit(store.db, entry({ at: '2026-11-01T10:00:00.000Z' }));
    const second = await appendAudit(
      store.db,
      entry({ at: '2026-11-02T10:00:00.000Z', actor: 'cli', role: null, action: 'user.add', outcome: 'complete' }),
    );
    await appendAudit(store.db, entry({ at: '2026-11-03T10:00:00.000Z', outcome: 'failed', errorCode: 'UPSTREAM_ERROR', records: 40 }));
    expect(first.seq).toBe(1);
    expect(second.prevHash).toBe(first.hash);
    const verdict = await verifyAudit(store.db);
    expect(verdict).toMatchObject({ ok: true, entries: 3 });
    const all = [];
    for await (const item of readAudit(store.db, {}, 2)) all.push(item);
    expect(all.map((item) => item.seq)).toEqual([1, 2, 3]);
    expect(all[0]).toMatchObject({ filters: { sport: 'Tennis' }, requestIds: ['req_1', 'req_2'], records: 120, bytes: 45_678 });
    const failed = [];
    for await (const item of readAudit(store.db, { outcome: 'failed', from: '2026-11-02T00:00:00.000Z' })) failed.push(item.seq);
    expect(failed).toEqual([3]);
    const byActor = [];
    for await (const item of readAudit(store.db, { actor: 'cli', to: '2026-11-03T00:00:00.000Z' })) byActor.push(item.action);
    expect(byActor).toEqual(['user.add']);
  });

  it('names the first entry that does not fit when one was changed or removed', async () => {
    const { store } = await fresh();
    for (let i = 0; i < 5; i += 1) await appendAudit(store.db, entry({ records: i }));
    await store.db.updateTable('audit_log').set({ records: 9_999 }).where('seq', '=', 3).execute();
    expect(await verifyAudit(store.db)).toEqual({ ok: false, seq: 3, problem: 'its content was changed' });
    await store.db.updateTable('audit_log').set({ records: 2 }).where('seq', '=', 3).execute();
    expect((await verifyAudit(store.db)).ok).toBe(true);
    await store.db.deleteFrom('audit_log').where('seq', '=', 2).execute();
    expect(await verifyAudit(store.db)).toEqual({ ok: false, seq: 3, problem: 'entries 2–2 before it are missing' });
  });

  it('catches an entry rewritten with a recomputed hash: the next one no longer follows it', async () => {
    const { store } = await fresh();
    for (let i = 0; i < 3; i += 1) await appendAudit(store.db, entry({ records: i }));
    const { entryHash, toEntry } = await import('@/lib/store/audit');
    const row = await store.db.selectFrom('audit_log').selectAll().where('seq', '=', 2).executeTakeFirstOrThrow();
    const forged = { ...toEntry(row), records: 1_000_000 };
    await store.db
      .updateTable('audit_log')
      .set({ records: 1_000_000, hash: entryHash(forged) })
      .where('seq', '=', 2)
      .execute();
    expect(await verifyAudit(store.db)).toEqual({ ok: false, seq: 3, problem: 'it does not follow the entry before it' });
  });

  it('prunes old entries and keeps the rest verifiable from the recorded anchor', async () => {
    const { store } = await fresh();
    for (let day = 1; day <= 6; day += 1) await appendAudit(store.db, entry({ at: `2026-11-0${day}T10:00:00.000Z` }));
    expect(await pruneAudit(store.db, '2026-11-04T00:00:00.000Z')).toBe(3);
    const left = [];
    for await (const item of readAudit(store.db)) left.push(item.seq);
    expect(left).toEqual([4, 5, 6]);
    expect(await verifyAudit(store.db)).toMatchObject({ ok: true, entries: 3 });
    expect((await appendAudit(store.db, entry())).seq).toBe(7);
    expect(await verifyAudit(store.db)).toMatchObject({ ok: true, entries: 4 });
    await store.db.deleteFrom('audit_log').where('seq', '=', 4).execute(); // the first after the cut
    expect(await verifyAudit(store.db)).toMatchObject({ ok: false, seq: 5 });
  });

  it('keeps one chain when two processes append at once', async () => {
    const { store, target } = await fresh();
    const script = `
      import { openStore } from './lib/store/open.ts';
      import { appendAudit } from './lib/store/audit.ts';
      const store = await openStore(JSON.parse(process.env.TARGET));
      await Promise.all(Array.from({ length: 15 }, (_, i) => appendAudit(store.db, { actor: 'p' + process.pid, role: null, action: 'sign-in', target: null, filters: null, outcome: 'complete', errorCode: null, records: null, bytes: null, sha256: null, durationMs: null, requestIds: [], address: null, licence: null })));
      await store.close();`;
    const run = () =>
      execFileAsync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, TARGET: JSON.stringify(target) },
      });
    await Promise.all([run(), run()]);
    expect(await verifyAudit(store.db)).toMatchObject({ ok: true, entries: 30 });
  });
});
