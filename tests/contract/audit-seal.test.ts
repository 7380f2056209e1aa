import { execFile } from 'node:child_process';
import { readFile, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { JSONWebKeySet } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { anchorSealer, CHECKPOINT_TYPE, sealAudit } from '@/lib/audit/checkpoints';
import { verifySealed } from '@/lib/audit/verify-sealed';
import { sealedCheck } from '@/lib/audit/sealing';
import { chainCheck } from '@/lib/alerts/audit-check';
import { registerSigningKey } from '@/lib/store/signing-keys';
import { newKeyPem, parseSigningKey, type SigningKey } from '@/lib/proof/keys';
import { signWith } from '@/lib/proof/signer';
import { appendAudit, entryHash, findAuditEntry, pruneAudit, toRow, type AuditInput } from '@/lib/store/audit';
import { listCheckpoints, type StoredCheckpoint } from '@/lib/store/checkpoints';
import { writeMeta } from '@/lib/store/meta';
import { openStore, type Store } from '@/lib/store/open';
import { storeEngines } from '../support/store-engines';
import { TEST_KEY_FILE, writeTestKeys } from '../support/proof';

/**
 * The sealed audit trail, tried as someone with write access to the database would (the review's three attacks
 * among them), on both engines: each kind of tampering fails `verify`, naming what it found; what remains
 * unprovable is said. Checkpoints are checked with a key set read from a file, never from the database.
 */

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

let key: SigningKey;
let keys: JSONWebKeySet;
let dir: string;
beforeAll(async () => {
  key = await parseSigningKey(await readFile(TEST_KEY_FILE, 'utf8'));
  dir = await mkdtemp(path.join(tmpdir(), 'audit-seal-'));
  keys = JSON.parse(await readFile(await writeTestKeys(path.join(dir, 'keys.json')), 'utf8')) as JSONWebKeySet;
});
const sign = (payload: Uint8Array) => signWith(key, payload, CHECKPOINT_TYPE);

const input = (n: number): AuditInput => ({
  actor: `editor${n % 3}@example.com`,
  role: 'editor',
  action: 'export.picks',
  target: `picks-${n}.csv`,
  filters: { sport: 'Football' },
  outcome: 'complete',
  errorCode: null,
  records: n,
  bytes: n * 100,
  sha256: 'a'.repeat(64),
  durationMs: 5,
  requestIds: [`req_${n}`],
  address: '127.0.0.1',
  licence: 'lic_1',
  at: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
});

/** 50 entries, sealed every 10: checkpoints 1–5 at entries 10, 20, 30, 40 and 50. */
async function sealedTrail(store: Store): Promise<StoredCheckpoint[]> {
  const made: StoredCheckpoint[] = [];
  for (let n = 1; n <= 50; n += 1) {
    await appendAudit(store.db, input(n));
    const checkpoint = await sealAudit(store.db, sign, { every: 10, minutes: 60, now: new Date(Date.UTC(2026, 0, 1) + n * 60_000) });
    if (checkpoint) made.push(checkpoint);
  }
  return made;
}

describe.each(storeEngines())('the sealed audit trail on $name', (engine) => {
  const setUp = async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const outside = (await sealedTrail(store)).map((c) => c.jws);
    return { store, db: store.db, outside };
  };

  it('seals who may act and where data goes with the trail: a change is sealed within a look, and a change beside it is named', async () => {
    const { verifyTables } = await import('@/lib/audit/verify-tables');
    const { putUser, updateUser } = await import('@/lib/store/users');
    const { db } = await setUp();
    const jwks = keys.keys as never[];
    // Sealed already at the checkpoints above: every table as it stood, none yet changed.
    expect(await verifyTables(db, jwks)).toEqual({
      problems: [],
      notes: ['vouched for by checkpoint 5: users, api_tokens, deliveries, token_webhooks, alert_webhooks'],
      vouched: ['users', 'api_tokens', 'deliveries', 'token_webhooks', 'alert_webhooks'],
    });
    // A person added: no entry is unsealed, yet the next look seals the tables anew.
    await putUser(db, { email: 'vic@example.com', role: 'viewer', passwordHash: 'scrypt$x' });
    const later = { every: 10, minutes: 60, now: new Date(Date.UTC(2026, 0, 2)) };
    expect(await sealAudit(db, sign, later)).toMatchObject({ id: 6, headSeq: 50 });
    expect(await sealAudit(db, sign, later)).toBeNull();
    expect((await verifyTables(db, jwks)).problems).toEqual([]);
    // Written beside the portal: a viewer made admin, a person planted.
    await updateUser(db, 'vic@example.com', { role: 'admin' });
    await putUser(db, { email: 'eve@example.com', role: 'admin', passwordHash: 'scrypt$e' });
    expect((await verifyTables(db, jwks)).problems).toEqual([
      'table users is not what checkpoint 6 sealed (changed: vic@example.com; added: eve@example.com)',
    ]);
    expect((await verifySealed(db, { keys })).problems).toEqual([]);
  });

  it('is sealed every N entries, each checkpoint following the one before, and verifies whole', async () => {
    const { store, outside } = await setUp();
    const checkpoints = await listCheckpoints(store.db);
    expect(checkpoints.map((c) => [c.id, c.headSeq])).toEqual([
      [1, 10],
      [2, 20],
      [3, 30],
      [4, 40],
      [5, 50],
    ]);
    const payload = JSON.parse(Buffer.from(checkpoints[1]!.jws.split('.')[1]!, 'base64url').toString());
    expect(payload).toMatchObject({
      type: 'picks-audit-checkpoint',
      id: 2,
      kind: 'seal',
      headSeq: 20,
      entries: 10,
      previous: checkpoints[0]!.hash,
    });
    expect(await sealAudit(store.db, sign, { every: 10, minutes: 60 })).toBeNull(); // nothing unsealed
    await appendAudit(store.db, input(51));
    const at51 = Date.parse(input(51).at!);
    expect(await sealAudit(store.db, sign, { every: 10, minutes: 60, now: new Date(at51 + 59 * 60_000) })).toBeNull();
    const late = await sealAudit(store.db, sign, { every: 10, minutes: 60, now: new Date(at51 + 60 * 60_000) });
    expect(late).toMatchObject({ id: 6, headSeq: 51 }); // unsealed for the time allowed: sealed however few

    const verdict = await verifySealed(store.db, { keys, outside });
    expect(verdict).toMatchObject({ ok: true, problems: [], entries: 51, checkpoints: 6, sealedUpTo: 51 });
  });

  it('finds an entry edited, and one deleted in the middle', async () => {
    const { db, outside } = await setUp();
    await db.updateTable('audit_log').set({ actor: 'mallory@example.com' }).where('seq', '=', 25).execute();
    expect((await verifySealed(db, { keys, outside })).problems).toContain('entry 25: its content was changed');
    await db.deleteFrom('audit_log').where('seq', '=', 25).execute();
    expect((await verifySealed(db, { keys, outside })).problems).toContain('entry 26: entries 25–25 before it are missing');
  });

  it('finds a prefix deleted with the anchor rewritten, and passes a real pruning, whose new start is sealed', async () => {
    const { db, outside } = await setUp();
    const e39 = (await findAuditEntry(db, 39))!;
    await db.deleteFrom('audit_log').where('seq', '<=', 39).execute();
    await writeMeta(db, 'audit-anchor', JSON.stringify({ seq: 39, hash: e39.hash }));
    const forged = await verifySealed(db, { keys, outside });
    expect(forged.ok).toBe(false);
    expect(forged.problems).toEqual([
      'the trail starts after entry 39, but no signed checkpoint records a pruning there: entries were deleted from its start and the anchor rewritten',
    ]);

    const real = await setUp();
    const made: StoredCheckpoint[] = [];
    expect(await pruneAudit(real.db, input(40).at!, anchorSealer(sign, made))).toBe(39);
    expect(made).toMatchObject([{ id: 6, headSeq: 39 }]);
    expect(await verifySealed(real.db, { keys, outside: [...real.outside, made[0]!.jws] })).toMatchObject({ ok: true, entries: 11 });
  });

  it('finds the newest entries deleted with their checkpoint, from the checkpoints kept outside (and says it cannot without them)', async () => {
    const { db, outside } = await setUp();
    await db.deleteFrom('audit_log').where('seq', '>', 40).execute();
    await db.deleteFrom('audit_checkpoints').where('id', '=', 5).execute();
    const found = await verifySealed(db, { keys, outside });
    expect(found.problems).toEqual([
      'checkpoint 5, kept outside the database, is missing from it',
      'entry 50, sealed by checkpoint 5, is missing: the newest entries were deleted',
    ]);
    const blind = await verifySealed(db, { keys });
    expect(blind.ok).toBe(true);
    expect(blind.notes.join('\n')).toContain('deleting the newest entries together with their checkpoints cannot be found');
  });

  it('finds every hash recomputed from some entry on', async () => {
    const { db, outside } = await setUp();
    let prevHash = (await findAuditEntry(db, 24))!.hash;
    for (let seq = 25; seq <= 50; seq += 1) {
      const entry = (await findAuditEntry(db, seq))!;
      const rewritten = { ...entry, actor: seq === 25 ? 'mallory@example.com' : entry.actor, prevHash };
      const hash = entryHash(rewritten);
      const row = toRow({ ...rewritten, hash });
      await db.updateTable('audit_log').set({ actor: row.actor, prev_hash: row.prev_hash, hash }).where('seq', '=', seq).execute();
      prevHash = hash;
    }
    const verdict = await verifySealed(db, { keys, outside });
    expect(verdict.problems).toEqual([
      'entry 30 is not the one checkpoint 3 sealed: the trail was rewritten from some entry on',
      'entry 40 is not the one checkpoint 4 sealed: the trail was rewritten from some entry on',
      'entry 50 is not the one checkpoint 5 sealed: the trail was rewritten from some entry on',
    ]);
  });

  it('the portal’s own periodic check finds, through the checkpoints, a rewrite the chain alone passes', async () => {
    const { db, outside } = await setUp();
    await registerSigningKey(db, key.kid, key.publicJwk);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'sealed-check-'));
    await writeFile(path.join(dataDir, 'audit-checkpoints.jsonl'), outside.map((jws) => `${JSON.stringify({ jws })}\n`).join(''));
    const check = sealedCheck({ PORTAL_DATA_DIR: dataDir, AUDIT_CHECKPOINT_FILE: undefined });
    expect(await check(db)).toEqual([]);
    await db.deleteFrom('audit_log').where('seq', '>', 40).execute();
    await db.deleteFrom('audit_checkpoints').where('id', '=', 5).execute();
    expect(await chainCheck(db)).toEqual([]); // a cut end leaves a valid chain
    expect(await check(db)).toEqual([
      'checkpoint 5, kept outside the database, is missing from it',
      'entry 50, sealed by checkpoint 5, is missing: the newest entries were deleted',
    ]);
  });

  it('finds a checkpoint forged with another key, and one removed', async () => {
    const { db, outside } = await setUp();
    const other = await parseSigningKey(newKeyPem());
    const [checkpoint3] = (await listCheckpoints(db)).filter((c) => c.id === 3);
    const payload = Buffer.from(checkpoint3!.jws.split('.')[1]!, 'base64url');
    const forged = await signWith(other, payload, CHECKPOINT_TYPE);
    await db.updateTable('audit_checkpoints').set({ jws: forged }).where('id', '=', 3).execute();
    let verdict = await verifySealed(db, { keys });
    expect(verdict.problems[0]).toMatch(/^checkpoint 3: its signature does not hold with the keys given \(forged or edited/);
    await db.deleteFrom('audit_checkpoints').where('id', '=', 3).execute();
    verdict = await verifySealed(db, { keys, outside });
    expect(verdict.problems).toEqual(['checkpoint 3 removed', 'checkpoint 3, kept outside the database, is missing from it']);
  });
});

describe('npm run audit -- verify', () => {
  it('exits 1 naming what it found, with keys and checkpoints read from files', async () => {
    const [engine] = storeEngines();
    const target = await engine!.fresh();
    if (target.engine !== 'sqlite') throw new Error('the embedded engine comes first');
    const store = await openStore(target);
    const outside = (await sealedTrail(store)).map((c) => `${JSON.stringify({ jws: c.jws })}\n`).join('');
    await store.db.updateTable('audit_log').set({ records: 9_999 }).where('seq', '=', 12).execute();
    await store.close();
    const file = path.join(dir, 'checkpoints.jsonl');
    await writeFile(file, outside);
    const failed = await promisify(execFile)(
      'npm',
      ['run', '-s', 'audit', '--', 'verify', '--keys', path.join(dir, 'keys.json'), '--checkpoints', file],
      { env: { ...process.env, PORTAL_DATA_DIR: path.dirname(target.file), DATABASE_URL: '' } },
    ).catch((error: { code: number; stdout: string }) => error);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stdout: string }).stdout).toContain('FAIL entry 12: its content was changed');
    expect((failed as { stdout: string }).stdout).toContain('NOT INTACT');
  }, 60_000);
});
