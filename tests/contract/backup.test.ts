import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { appendAudit, verifyAudit, type AuditInput } from '@/lib/store/audit';
import { insertDelivery } from '@/lib/store/deliveries';
import { openStore, type Store } from '@/lib/store/open';
import { putUser } from '@/lib/store/users';
import { CHECKPOINT_TYPE, keepOutside, sealAudit } from '@/lib/audit/checkpoints';
import { parseSigningKey } from '@/lib/proof/keys';
import { signWith } from '@/lib/proof/signer';

/**
 * `npm run backup` and `npm run restore`, as an operator runs them: a backup taken while another process
 * keeps writing to the embedded database, checked, restored into a fresh data directory, where every user,
 * audit entry (the chain verifying), delivery and change is found; restores refused while a portal runs, of
 * a damaged file, of a newer portal's database; PostgreSQL pointed to pg_dump.
 */

const run = (args: string[], env: Record<string, string>) =>
  new Promise<{ code: number; out: string }>((resolve) => {
    const child = spawn('npm', ['run', '-s', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => resolve({ code: code ?? 1, out }));
  });

const entry = (i: number): AuditInput => ({
  actor: `user${i % 7}@example.com`,
  role: 'editor',
  action: 'export.picks',
  target: `picks-${i}.csv`,
  filters: { sport: 'Tennis' },
  outcome: 'complete',
  errorCode: null,
  records: i,
  bytes: i * 10,
  sha256: null,
  durationMs: 3,
  requestIds: [`req_${i}`],
  address: null,
  licence: null,
});

const opened: Store[] = [];
afterAll(() => Promise.all(opened.map((s) => s.close())));

async function portalData() {
  const dir = await mkdtemp(path.join(tmpdir(), 'backup-'));
  const store = await openStore({ engine: 'sqlite', file: path.join(dir, 'portal.sqlite'), label: 'test' });
  opened.push(store);
  return { dir, store };
}

describe('backup and restore of the embedded database', () => {
  it('backs up while writes go on, restores into a fresh data directory with everything in it', async () => {
    const { dir, store } = await portalData();
    for (let i = 0; i < 25; i += 1) await putUser(store.db, { email: `user${i}@example.com`, role: 'viewer', passwordHash: 'scrypt$x' });
    for (let i = 0; i < 3; i += 1)
      await insertDelivery(store.db, {
        id: `dlv_${i}`,
        name: `Delivery ${i}`,
        kind: 'picks',
        format: 'csv',
        filters: { sport: 'Tennis' },
        schedule: '0 6 * * *',
        destination: { type: 'directory', folder: `d${i}` },
        secret: null,
        createdBy: 'user1@example.com',
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
        lastDueMs: Date.now(),
      });
    await store.db
      .insertInto('changes')
      .values(
        Array.from({ length: 40 }, (_, i) => ({
          seq: i + 1,
          detected_at: new Date(Date.now() - i * 1000).toISOString(),
          pick_id: `p${i}`,
          kinds: 'new',
          sport: 'Tennis',
          league: 'ATP',
          display: '{}',
          before: null,
          after: null,
        })),
      )
      .execute();
    for (let i = 0; i < 200; i += 1) await appendAudit(store.db, entry(i));

    // The portal keeps writing (its own audit entries) while the backup runs in another process.
    let writing = true;
    let written = 200;
    const writer = (async () => {
      while (writing) {
        await appendAudit(store.db, entry(written));
        written += 1;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const file = path.join(dir, 'backup-1.sqlite');
    const backup = await run(['backup', '--', file], { PORTAL_DATA_DIR: dir, DATABASE_URL: '' });
    writing = false;
    await writer;
    expect(backup.out).toMatch(/backed up .* 25 users, \d+ audit entries \(chain intact/);
    expect(backup.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const inBackup = Number(/(\d+) audit entries/.exec(backup.out)![1]);
    expect(inBackup).toBeGreaterThanOrEqual(200);
    expect(inBackup).toBeLessThanOrEqual(written);
    expect(written).toBeGreaterThan(200); // writes did go on during the backup

    const fresh = await mkdtemp(path.join(tmpdir(), 'restored-'));
    const restore = await run(['restore', '--', file], { PORTAL_DATA_DIR: fresh, DATABASE_URL: '' });
    expect(restore.out).toContain(`25 users, ${inBackup} audit entries (chain intact`);
    expect(restore.code).toBe(0);
    const restored = await openStore({ engine: 'sqlite', file: path.join(fresh, 'portal.sqlite'), label: 'restored' });
    opened.push(restored);
    expect(await restored.db.selectFrom('users').select('email').orderBy('email').execute()).toHaveLength(25);
    expect(await verifyAudit(restored.db)).toMatchObject({ ok: true, entries: inBackup + 1 }); // and the restore's own entry
    const [restoredEntry] = await restored.db.selectFrom('audit_log').selectAll().orderBy('seq', 'desc').limit(1).execute();
    expect(restoredEntry).toMatchObject({ actor: 'cli', action: 'backup.restore', target: 'backup-1.sqlite', outcome: 'complete' });
    expect((await restored.db.selectFrom('deliveries').select('name').orderBy('name').execute()).map((d) => d.name)).toEqual([
      'Delivery 0',
      'Delivery 1',
      'Delivery 2',
    ]);
    expect(await restored.db.selectFrom('changes').select('seq').execute()).toHaveLength(40);
    // The same audit entries, byte for byte, as the live database held at the backup.
    const live = await store.db.selectFrom('audit_log').select(['seq', 'hash']).orderBy('seq').limit(inBackup).execute();
    const back = await restored.db.selectFrom('audit_log').select(['seq', 'hash']).orderBy('seq').limit(inBackup).execute();
    expect(back).toEqual(live);

    // Restoring again over it keeps the database it replaces beside it.
    await restored.close();
    opened.pop();
    const again = await run(['restore', '--', file], { PORTAL_DATA_DIR: fresh, DATABASE_URL: '' });
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/the database it replaced is kept as .*portal\.sqlite\.before-restore-/);
  });

  it('refuses a restore while a portal runs, of a damaged file, of a newer portal’s database; and a backup over a file', async () => {
    const { dir, store } = await portalData();
    await appendAudit(store.db, entry(1));
    const file = path.join(dir, 'b.sqlite');
    expect((await run(['backup', '--', file], { PORTAL_DATA_DIR: dir, DATABASE_URL: '' })).code).toBe(0);
    const over = await run(['backup', '--', file], { PORTAL_DATA_DIR: dir, DATABASE_URL: '' });
    expect(over).toMatchObject({ code: 1, out: expect.stringContaining('exists already') });

    const target = await mkdtemp(path.join(tmpdir(), 'busy-'));
    await writeFile(path.join(target, 'portal.pid'), String(process.pid)); // this test process stands for a running portal
    const busy = await run(['restore', '--', file], { PORTAL_DATA_DIR: target, DATABASE_URL: '' });
    expect(busy).toMatchObject({ code: 1, out: expect.stringContaining(`a portal (process ${process.pid}) is running`) });

    const damaged = path.join(dir, 'damaged.sqlite');
    await writeFile(damaged, Buffer.alloc(8192, 7));
    const bad = await run(['restore', '--', damaged], { PORTAL_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'x-')), DATABASE_URL: '' });
    expect(bad).toMatchObject({ code: 1, out: expect.stringContaining('is not a sound SQLite database') });

    const newer = path.join(dir, 'newer.sqlite');
    expect((await run(['backup', '--', newer], { PORTAL_DATA_DIR: dir, DATABASE_URL: '' })).code).toBe(0);
    const raw = new SQLite(newer);
    raw.prepare(`insert into kysely_migration (name, timestamp) values ('9999_from_the_future', '2030-01-01')`).run();
    raw.close();
    const future = await run(['restore', '--', newer], { PORTAL_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'y-')), DATABASE_URL: '' });
    expect(future).toMatchObject({ code: 1, out: expect.stringContaining('comes from a newer portal (9999_from_the_future)') });

    const pgStore = await run(['backup', '--', file], { DATABASE_URL: 'postgres://portal@127.0.0.1:1/portal' });
    expect(pgStore).toMatchObject({ code: 2, out: expect.stringContaining('pg_dump --format=custom') });
  }, 90_000); // four commands, each a whole node process: room for a busy machine

  it('refuses a tampered backup whose trail disagrees with the checkpoints and keys kept outside; restores it only when told, recorded; onto a new machine too', async () => {
    const { dir, store } = await portalData();
    const key = await parseSigningKey(await readFile(process.env.PORTAL_SIGNING_KEY_FILE!, 'utf8'));
    const sign = (payload: Uint8Array) => signWith(key, payload, CHECKPOINT_TYPE);
    const kept = path.join(dir, 'audit-checkpoints.jsonl');
    await putUser(store.db, { email: 'vic@example.com', role: 'viewer', passwordHash: 'scrypt$x' });
    for (let i = 0; i < 30; i += 1) await appendAudit(store.db, entry(i));
    await keepOutside(kept, [(await sealAudit(store.db, sign, { every: 1, minutes: 0, force: true }))!]);
    for (let i = 30; i < 40; i += 1) await appendAudit(store.db, entry(i));
    await keepOutside(kept, [(await sealAudit(store.db, sign, { every: 1, minutes: 0, force: true }))!]);
    const file = path.join(dir, 'sealed.sqlite');
    expect((await run(['backup', '--', file], { PORTAL_DATA_DIR: dir, DATABASE_URL: '' })).code).toBe(0);
    const env = (target: string) => ({ PORTAL_DATA_DIR: target, DATABASE_URL: '' });
    const sound = await run(['restore', '--', file, '--checkpoints', kept], env(await mkdtemp(path.join(tmpdir(), 'sound-'))));
    expect(sound.code, sound.out).toBe(0);

    // A viewer made admin, the newest entries deleted with their checkpoint, a signing key planted.
    const raw = new SQLite(file);
    raw.prepare(`update users set role = 'admin' where email = 'vic@example.com'`).run();
    raw.prepare('delete from audit_log where seq > 35').run();
    raw.prepare('delete from audit_checkpoints where id = 2').run();
    raw
      .prepare(
        `insert into signing_keys (kid, jwk, created_at) values ('planted', '{"kty":"OKP","crv":"Ed25519","x":"AAAA","kid":"planted"}', '2026-01-01')`,
      )
      .run();
    raw.close();
    const fresh = path.join(await mkdtemp(path.join(tmpdir(), 'new-machine-')), 'data'); // a data directory not made yet
    const refused = await run(['restore', '--', file, '--checkpoints', kept], env(fresh));
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('FAIL checkpoint 2, kept outside the database, is missing from it');
    expect(refused.out).toContain('restore refused');
    expect(existsSync(path.join(fresh, 'portal.sqlite'))).toBe(false);

    const forced = await run(['restore', '--', file, '--checkpoints', kept, '--accept-unverified'], env(fresh));
    expect(forced.code, forced.out).toBe(0);
    expect(forced.out).toContain('recorded in the audit trail (backup.restore, UNVERIFIED)');
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(fresh, 'portal.sqlite')).mode & 0o777).toBe(0o600);
    const restored = await openStore({ engine: 'sqlite', file: path.join(fresh, 'portal.sqlite'), label: 'restored' });
    opened.push(restored);
    const [last] = await restored.db.selectFrom('audit_log').selectAll().orderBy('seq', 'desc').limit(1).execute();
    expect(last).toMatchObject({ action: 'backup.restore', error_code: 'UNVERIFIED' });
    expect(String(last!.filters)).toContain('checkpoint 2');
  });
});
