import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { historyOf } from '@/lib/history/diff';
import { momentStream } from '@/lib/history/files';
import { versionOf } from '@/lib/vocabulary/version';
import type { LicenceSummary } from '@/lib/vocabulary/licence';
import { newAttestor } from '@/lib/proof/attest';
import { finishProof, startProof } from '@/lib/proof/file-proof';
import { recordVersions, recordWithdrawalsIn } from '@/lib/store/history';
import { eachVersionAt, firstVersionsAt, type VersionAt } from '@/lib/store/history-at';
import { historySince, pruneHistory, readRecordHistory } from '@/lib/store/history-read';
import { findDeliveredFile, openDeliveredFile } from '@/lib/store/delivered';
import { pruneExpired } from '@/lib/store/maintenance';
import { headsMovedAfter, lastHistoryWrite } from '@/lib/store/history-writes';
import { openStore, type Store } from '@/lib/store/open';
import { storeEngines } from '../support/store-engines';

/** Record history's store on both engines: versions once per content, a record's history, the set at a moment, retention. */

const T = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;

const pick = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  sport: 'Football',
  league: 'Serie A',
  homeTeam: 'Etna Calcio',
  awayTeam: 'Bergamo Nord FC',
  eventDate: '2026-11-21T18:00:00.000Z',
  eventMetadata: { competition: 'Serie A', stage: 'Round 12' },
  marketType: 'moneyline',
  selection: 'Etna Calcio',
  line: null,
  odds: 2.1,
  status: 'upcoming',
  result: null,
  settledAt: null,
  publishedAt: '2026-11-20T09:00:00.000Z',
  ...fields,
});

describe.each(storeEngines())('record history on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  async function fresh() {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    return store;
  }
  const see = (store: Store, at: number, records: Record<string, unknown>[], by: 'poll' | 'export' | 'delivery' = 'poll') =>
    recordVersions(
      store.db,
      records.map((r) => versionOf(r as { id: string })),
      at,
      by,
    );
  const withdraw = (store: Store, at: number, ids: string[]) => store.db.transaction().execute((trx) => recordWithdrawalsIn(trx, ids, at));

  it('numbers its writes in the order they commit, and names the records moved by the writes after one', async () => {
    const store = await fresh();
    const start = await lastHistoryWrite(store.db);
    await see(store, T, [pick('p1'), pick('p2'), pick('p3')]);
    const after = await lastHistoryWrite(store.db);
    expect(after).toBeGreaterThan(start);
    expect((await headsMovedAfter(store.db, start, null, 10)).map((h) => h.pickId)).toEqual(['p1', 'p2', 'p3']);
    // Seen again unchanged: no head moves; a change and a withdrawal do.
    await see(store, T + MIN, [pick('p1'), pick('p2')], 'export');
    await see(store, T + 2 * MIN, [pick('p2', { status: 'live' })]);
    await withdraw(store, T + 3 * MIN, ['p3']);
    const moved = await headsMovedAfter(store.db, after, null, 10);
    expect(moved.map((h) => [h.pickId, h.status, h.body === null])).toEqual([
      ['p2', 'live', false],
      ['p3', null, true],
    ]);
    expect(JSON.parse(moved[0]!.body!)).toMatchObject({ id: 'p2', status: 'live' });
    // In id order, a page at a time.
    expect((await headsMovedAfter(store.db, start, 'p1', 1)).map((h) => h.pickId)).toEqual(['p2']);
    expect(await headsMovedAfter(store.db, await lastHistoryWrite(store.db), null, 10)).toEqual([]);
  });

  it('stores each distinct content once, however often and by whatever it is seen; null and absent are one', async () => {
    const store = await fresh();
    expect(await see(store, T, [pick('p1'), pick('p2')])).toEqual({ versions: 2, bodies: 2 });
    expect(await see(store, T + MIN, [pick('p1'), pick('p2')], 'export')).toEqual({ versions: 0, bodies: 0 });
    // The same content with its null members left out and its keys in another order.
    const { line: _line, result: _result, settledAt: _settled, ...rest } = pick('p1');
    const reordered = Object.fromEntries(Object.entries(rest).reverse());
    expect(await see(store, T + 2 * MIN, [reordered], 'delivery')).toEqual({ versions: 0, bodies: 0 });
    const history = await readRecordHistory(store.db, 'p1');
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ seq: 1, firstMs: T, firstBy: 'poll', lastMs: T + 2 * MIN, lastBy: 'delivery' });
    expect(JSON.parse(history[0]!.body!)).not.toHaveProperty('line');
    expect(await store.db.selectFrom('record_bodies').select('digest').execute()).toHaveLength(2);
  });

  it('follows one record through new, live, settled, a corrected result, withdrawn and restored, field by field', async () => {
    const store = await fresh();
    await see(store, T, [pick('p1')]);
    await see(store, T + MIN, [pick('p1', { status: 'live', publishedAt: '2026-11-21T18:00:00.000Z' })]);
    const settled = { status: 'settled', result: 'win', settledAt: '2026-11-21T20:00:00.000Z', publishedAt: '2026-11-21T20:00:00.000Z' };
    await see(store, T + 2 * MIN, [pick('p1', settled)]);
    await see(store, T + 3 * MIN, [pick('p1', settled)]); // seen again: no new version
    const corrected = { ...settled, result: 'loss', publishedAt: '2026-11-22T08:00:00.000Z' };
    await see(store, T + 4 * MIN, [pick('p1', corrected)]);
    await withdraw(store, T + 5 * MIN, ['p1']);
    await withdraw(store, T + 6 * MIN, ['p1']); // still withdrawn: nothing new
    await see(store, T + 7 * MIN, [pick('p1', corrected)]);

    const entries = historyOf(await readRecordHistory(store.db, 'p1'));
    expect(entries.map((e) => [e.version, e.kind])).toEqual([
      [1, 'first'],
      [2, 'changed'],
      [3, 'changed'],
      [4, 'changed'],
      [5, 'withdrawn'],
      [6, 'restored'],
    ]);
    expect(entries[1]!.changes).toEqual([
      { field: 'publishedAt', before: '2026-11-20T09:00:00.000Z', after: '2026-11-21T18:00:00.000Z' },
      { field: 'status', before: 'upcoming', after: 'live' },
    ]);
    expect(entries[2]!.changes).toEqual([
      { field: 'publishedAt', before: '2026-11-21T18:00:00.000Z', after: '2026-11-21T20:00:00.000Z' },
      { field: 'result', before: null, after: 'win' },
      { field: 'settledAt', before: null, after: '2026-11-21T20:00:00.000Z' },
      { field: 'status', before: 'live', after: 'settled' },
    ]);
    expect(entries[2]).toMatchObject({ firstSeen: new Date(T + 2 * MIN).toISOString(), lastSeen: new Date(T + 3 * MIN).toISOString() });
    expect(entries[3]!.changes).toEqual([
      { field: 'publishedAt', before: '2026-11-21T20:00:00.000Z', after: '2026-11-22T08:00:00.000Z' },
      { field: 'result', before: 'win', after: 'loss' },
    ]);
    expect(entries[4]).toMatchObject({ record: null, digest: null, firstSeen: new Date(T + 5 * MIN).toISOString() });
    expect(entries[5]).toMatchObject({ changes: [], digest: entries[3]!.digest, record: { result: 'loss' } });
    // Five versions, four contents: the restored one is the corrected one's.
    expect(await store.db.selectFrom('record_bodies').select('digest').execute()).toHaveLength(4);
  });

  it('adds no version for a sighting older than the newest one of another version (a slow export)', async () => {
    const store = await fresh();
    await see(store, T + 2 * MIN, [pick('p1', { status: 'live' })]);
    await see(store, T + MIN, [pick('p1')], 'export');
    const history = await readRecordHistory(store.db, 'p1');
    expect(history.map((v) => v.seq)).toEqual([1]);
    // Its content is kept all the same: what an export delivered can be shown.
    expect(await store.db.selectFrom('record_bodies').select('digest').execute()).toHaveLength(2);
  });

  it('answers the set at a moment: the latest version seen by then, without the withdrawn, filtered, in id order, in batches', async () => {
    const store = await fresh();
    await see(store, T, [pick('p1'), pick('p2', { sport: 'Tennis', league: 'ATP Tour' }), pick('p3')]);
    await see(store, T + 10 * MIN, [pick('p1', { status: 'live' }), pick('p3'), pick('p4', { eventDate: '2026-11-25T18:00:00.000Z' })]);
    await withdraw(store, T + 10 * MIN, ['p2']);
    const at = async (ms: number, filters = {}) =>
      (await firstVersionsAt(store.db, ms, filters, 100)).map((v) => [v.pickId, JSON.parse(v.body).status]);
    expect(await at(T - 1)).toEqual([]);
    expect(await at(T + 5 * MIN)).toEqual([
      ['p1', 'upcoming'],
      ['p2', 'upcoming'],
      ['p3', 'upcoming'],
    ]);
    expect(await at(T + 10 * MIN)).toEqual([
      ['p1', 'live'],
      ['p3', 'upcoming'],
      ['p4', 'upcoming'],
    ]);
    expect(await at(T + 5 * MIN, { sport: 'tennis' })).toEqual([['p2', 'upcoming']]);
    expect(await at(T + 10 * MIN, { status: 'live' })).toEqual([['p1', 'live']]);
    expect(await at(T + 10 * MIN, { from: '2026-11-22T00:00:00.000Z' })).toEqual([['p4', 'upcoming']]);
    expect(await at(T + 10 * MIN, { to: '2026-11-22T00:00:00.000Z', league: 'SERIE A' })).toEqual([
      ['p1', 'live'],
      ['p3', 'upcoming'],
    ]);
    const batches: string[][] = [];
    for await (const batch of eachVersionAt(store.db, T + 10 * MIN, {}, 2)) batches.push(batch.map((v) => v.pickId));
    // Two records' range at a time: p2 was withdrawn by then.
    expect(batches).toEqual([['p1'], ['p3', 'p4']]);
    expect(await historySince(store.db)).toBe(T);
  });

  it('reads a head that a release before 0015 moved, or that is not filled in, from its versions', async () => {
    const store = await fresh();
    await see(store, T, [pick('p1'), pick('p2')]);
    await see(store, T + 10 * MIN, [pick('p1', { status: 'live' }), pick('p2')]);
    // A release before 0015 writes p1's third version: it moves seq and digest and leaves first_ms behind.
    const settled = versionOf(pick('p1', { status: 'settled', result: 'win' }) as { id: string });
    await recordVersions(store.db, [settled], T + 20 * MIN, 'poll');
    await store.db
      .updateTable('record_heads')
      .set({ first_ms: T + 10 * MIN, first_seq: 2 })
      .where('pick_id', '=', 'p1')
      .execute();
    await store.db.updateTable('record_heads').set({ first_ms: null, first_seq: null }).where('pick_id', '=', 'p2').execute();
    const at = async (ms: number) => (await firstVersionsAt(store.db, ms, {}, 100)).map((v) => [v.pickId, JSON.parse(v.body).status]);
    expect(await at(T + 15 * MIN)).toEqual([
      ['p1', 'live'],
      ['p2', 'upcoming'],
    ]);
    expect(await at(T + 20 * MIN)).toEqual([
      ['p1', 'settled'],
      ['p2', 'upcoming'],
    ]);
    expect((await firstVersionsAt(store.db, T + 20 * MIN, {}, 1))[0]).toMatchObject({ digest: settled.digest, firstMs: T + 20 * MIN });
  });

  it('fails a walk whose read-ahead range fails while the caller holds a batch, with nothing unhandled', async () => {
    const store = await fresh();
    await see(
      store,
      T,
      ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'].map((id) => pick(id)),
    );
    // The store fails its third query: the range read ahead while the second batch is held.
    let queries = 0;
    const failing = store.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        queries += 1;
        if (queries === 3) throw new Error('the store went away');
        return args.result;
      },
    });
    const walk = eachVersionAt(failing, T, {}, 2);
    expect(((await walk.next()).value as VersionAt[]).map((v) => v.pickId)).toEqual(['p1', 'p2']);
    expect(((await walk.next()).value as VersionAt[]).map((v) => v.pickId)).toEqual(['p3', 'p4']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(queries).toBe(3);
    await expect(walk.next()).rejects.toThrow('the store went away');
  });

  it("checks a file of the set at a moment against the licence as a check of its records' bodies would", async () => {
    const store = await fresh();
    await see(store, T, [
      pick('p1', { homeTeam: 'Bayern München', awayTeam: '東京 FC' }),
      pick('p2', { sport: 'Tennis', league: 'ATP Tour' }),
      pick('p3', { eventDate: '2027-03-01T18:00:00.000Z' }),
      pick('p4', { sport: '', eventDate: 'not a date' }),
      pick('p5', { league: 'SERIE A' }),
    ]);
    const summary: LicenceSummary = {
      ...{ partner: 'p', licenceId: 'lic_1', status: 'active', contentMode: null, channels: null, expiresAt: null },
      ...{ sports: ['Football'], leagues: ['Serie A'], from: '2026-11-01', to: '2026-12-31' },
    };
    const licence = { summary, document: { licence: summary }, readAt: new Date(T).toISOString() };
    const proof = startProof(licence, {});
    const stream = await momentStream(store.db, T, {}, 'json', {}, { proof });
    const file = JSON.parse(await new Response(stream).text()) as { data: Record<string, unknown>[] };
    const fromBodies = newAttestor(licence);
    fromBodies.see(file.data, 'utf8');
    expect(file.data.map((r) => r.id)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    // Bodies written as the bytes the store holds, read back as the same text, in JSON and CSV alike.
    expect(file.data[0]).toMatchObject({ homeTeam: 'Bayern München', awayTeam: '東京 FC' });
    const csv = await new Response(await momentStream(store.db, T, {}, 'csv', {}, { proof: null })).text();
    expect(csv.split('\r\n')[1]).toContain('Bayern München,東京 FC');
    const lines = await new Response(await momentStream(store.db, T, {}, 'jsonl', {}, { proof: null })).text();
    expect(lines.endsWith('\n')).toBe(true);
    expect(
      lines
        .slice(0, -1)
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(file.data);
    // Parquet, written on its worker thread from the stored bodies: the same records, text as it was.
    const parquet = Buffer.from(await new Response(await momentStream(store.db, T, {}, 'parquet', {}, { proof: null })).arrayBuffer());
    const path = join(await mkdtemp(join(tmpdir(), 'moment-')), 'moment.parquet');
    await writeFile(path, parquet);
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const read = (await duck.runAndReadAll(`select id, homeTeam, awayTeam from read_parquet('${path}')`)).getRowObjectsJS();
    expect(read).toEqual(file.data.map((r) => ({ id: r.id, homeTeam: r.homeTeam, awayTeam: r.awayTeam })));
    expect(finishProof(proof).licence).toEqual(fromBodies.attestation());
    expect(finishProof(proof).recordIds).toEqual(fromBodies.recordIds());
    // Tennis and an empty sport; ATP Tour (SERIE A is Serie A, folded); March 2027 and no date.
    expect(fromBodies.attestation().checks).toMatchObject({ sports: { outside: 2 }, leagues: { outside: 1 }, dates: { outside: 2 } });
  });

  it('fills in the heads of a history kept before 0015 when it migrates', async () => {
    const target = await engine.fresh();
    let store = await openStore(target);
    await see(store, T, [pick('p1'), pick('p2')]);
    await see(store, T + 10 * MIN, [pick('p1', { status: 'live' }), pick('p2')]);
    await withdraw(store, T + 20 * MIN, ['p2']);
    // The schema as 0014 left it.
    await sql`alter table record_heads drop column first_ms`.execute(store.db);
    await sql`alter table record_heads drop column first_seq`.execute(store.db);
    await sql`alter table api_tokens drop column owner_since_ms`.execute(store.db);
    await sql`alter table signing_keys drop column compromised_at`.execute(store.db);
    await sql`alter table users drop column oidc_sub`.execute(store.db);
    await sql`drop table job_runs`.execute(store.db);
    await sql`drop table job_leases`.execute(store.db);
    await sql`drop index delivered_versions_pick`.execute(store.db);
    await sql`alter table changes drop column digest`.execute(store.db);
    await sql`alter table changes drop column prev_digest`.execute(store.db);
    await sql`alter table change_feed drop column last_seq`.execute(store.db);
    await sql`drop table event_checkpoints`.execute(store.db);
    await sql`drop table token_webhooks`.execute(store.db);
    await sql`drop table token_webhook_attempts`.execute(store.db);
    await sql`drop index record_heads_written`.execute(store.db);
    await sql`alter table record_heads drop column written`.execute(store.db);
    await sql`alter table delivery_runs drop column table_counts`.execute(store.db);
    await sql`drop table audit_sealed_rows`.execute(store.db);
    await sql`drop table record_index`.execute(store.db);
    if (engine.name === 'sqlite') await sql`drop table record_words`.execute(store.db);
    await sql`drop table token_requests`.execute(store.db);
    await sql`drop index api_tokens_prev_hash`.execute(store.db);
    for (const column of ['prev_hash', 'prev_prefix', 'prev_until_ms', 'rolled_ms'])
      await sql`alter table api_tokens drop column ${sql.raw(column)}`.execute(store.db);
    await sql`delete from kysely_migration where name >= '0015'`.execute(store.db);
    await store.close();
    store = await openStore(target);
    opened.push(store);
    const heads = await store.db
      .selectFrom('record_heads')
      .select(['pick_id', 'seq', 'first_ms', 'first_seq'])
      .orderBy('pick_id')
      .execute();
    expect(heads.map((h) => [h.pick_id, Number(h.seq), Number(h.first_ms), Number(h.first_seq)])).toEqual([
      ['p1', 2, T + 10 * MIN, 2],
      ['p2', 2, T + 20 * MIN, 2],
    ]);
  });

  it('prunes versions replaced before the cut-off and forgotten records, never the newest version of a watched one', async () => {
    const store = await fresh();
    await see(store, T, [pick('p1'), pick('gone')]);
    await see(store, T + 10 * MIN, [pick('p1', { status: 'live' })]);
    await see(store, T + 20 * MIN, [pick('p1', { status: 'settled', result: 'win' })]);
    await store.db
      .insertInto('watched')
      .values({ id: 'p1', published_at: null, status: 'settled', result: 'win', digest: 'x', event_ms: null, display: '{}', withdrawn: 0 })
      .execute();
    expect(await pruneHistory(store.db, T + 15 * MIN)).toBe(2); // p1's first version, and "gone"
    expect((await readRecordHistory(store.db, 'p1')).map((v) => v.seq)).toEqual([2, 3]);
    expect(await readRecordHistory(store.db, 'gone')).toEqual([]);
    expect(await historySince(store.db)).toBe(T + 15 * MIN);
    expect(await store.db.selectFrom('record_bodies').select('digest').execute()).toHaveLength(2);
    // A file whose instance stopped before it was read back is said failed, once it is hours old.
    await openDeliveredFile(store.db, {
      id: 'exp_0123456789abcdef0123',
      kind: 'export',
      actor: 'ana@example.com',
      deliveryId: null,
      atMs: T,
    });
    await pruneExpired(store.db, T + 7 * 3_600_000);
    expect(await findDeliveredFile(store.db, 'exp_0123456789abcdef0123')).toMatchObject({
      kept: 'failed',
      error: expect.stringContaining('stopped'),
    });
    // Long after, p1 is still watched: its newest version stays.
    await pruneHistory(store.db, T + 100 * MIN);
    expect((await readRecordHistory(store.db, 'p1')).map((v) => v.seq)).toEqual([3]);
  });
});
