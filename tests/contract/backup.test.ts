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
    await putUser(store.db, { email: 'wes@example.com', role: 'editor', passwordHash: 'scrypt$y' });
    for (let i = 0; i < 30; i += 1) await appendAudit(store.db, entry(i));
    await keepOutside(kept, [(await sealAudit(store.db, sign, { every: 1, minutes: 0, force: true }))!]);
    for (let i = 30; i < 40; i += 1) await appendAudit(store.db, entry(i));
    await keepOutside(kept, [(await sealAudit(store.db, sign, { every: 1, minutes: 0, force: true }))!]);
    const file = path.join(dir, 'sealed.sqlite');
    expect((await run(['backup', '--', file], { PORTAL_DATA_DIR: dir, DATABASE_URL: '' })).code).toBe(0);
    const env = (target: string) => ({ PORTAL_DATA_DIR: target, DATABASE_URL: '' });
    const sound = await run(['restore', '--', file, '--checkpoints', kept], env(await mkdtemp(path.join(tmpdir(), 'sound-'))));
    expect(sound.code, sound.out).toBe(0);

    // A viewer made admin, another's password hash replaced, the newest entries deleted with their checkpoint (now
    // indistinguishable from an older backup, but for what the older checkpoint sealed), a signing key planted.
    const raw = new SQLite(file);
    raw.prepare(`update users set role = 'admin' where email = 'vic@example.com'`).run();
    raw.prepare(`update users set password_hash = 'scrypt$mine' where email = 'wes@example.com'`).run();
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
    expect(refused.out).toContain('FAIL table users is not what checkpoint 1 sealed (changed: vic@example.com, wes@example.com)');
    expect(refused.out).toContain('note checkpoint 2, kept outside, was made after this copy');
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
    expect(String(last!.filters)).toContain('table users');
  });

  it('restores a day-old backup onto a new machine although checkpoints were sealed since; refuses one whose older checkpoint was removed', async () => {
    const { dir, store } = await portalData();
    const key = await parseSigningKey(await readFile(process.env.PORTAL_SIGNING_KEY_FILE!, 'utf8'));
    const sign = (payload: Uint8Array) => signWith(key, payload, CHECKPOINT_TYPE);
    const kept = path.join(dir, 'audit-checkpoints.jsonl');
    const day = 86_400_000;
    const now = Date.now();
    const at = (ms: number) => new Date(ms).toISOString();
    const seal = async (ms: number) =>
      keepOutside(kept, [(await sealAudit(store.db, sign, { every: 1, minutes: 0, force: true, now: new Date(ms) }))!]);
    await putUser(store.db, { email: 'ann@example.com', role: 'admin', passwordHash: 'scrypt$a' });
    for (let i = 0; i < 20; i += 1) await appendAudit(store.db, { ...entry(i), at: at(now - day + i * 1000) });
    await seal(now - day + 60_000);
    for (let i = 20; i < 25; i += 1) await appendAudit(store.db, { ...entry(i), at: at(now - day + 600_000 + i * 1000) });
    // The nightly backup: its command seals what is unsealed first (checkpoint 2, with the tables), then copies.
    const file = path.join(dir, 'nightly.sqlite');
    const backup = await run(['backup', '--', file], { PORTAL_DATA_DIR: dir, DATABASE_URL: '' });
    expect(backup.code, backup.out).toBe(0);
    expect(backup.out).toContain('note vouched for by checkpoint 2: users, api_tokens, deliveries, token_webhooks, alert_webhooks');
    expect(existsSync(`${file}-wal`) || existsSync(`${file}-shm`)).toBe(false);
    // A day goes by: more entries, a new person, hourly checkpoints (one sealing the trail anew, one the tables).
    for (let i = 25; i < 35; i += 1) await appendAudit(store.db, { ...entry(i), at: at(now + day + i * 1000) });
    await seal(now + day + 60_000);
    await putUser(store.db, { email: 'ben@example.com', role: 'editor', passwordHash: 'scrypt$b' });
    await seal(now + day + 120_000);
    expect((await readFile(kept, 'utf8')).trim().split('\n')).toHaveLength(4);

    const fresh = path.join(await mkdtemp(path.join(tmpdir(), 'day-old-')), 'data');
    const restored = await run(['restore', '--', file, '--checkpoints', kept], { PORTAL_DATA_DIR: fresh, DATABASE_URL: '' });
    expect(restored.code, restored.out).toBe(0);
    expect(restored.out).toContain("note checkpoints 3, 4, kept outside, were made after this copy's newest entry (25)");
    expect(restored.out).toContain('note vouched for by checkpoint 2: users');
    expect(restored.out).not.toContain('FAIL');
    expect(existsSync(`${file}-wal`) || existsSync(`${file}-shm`)).toBe(false);

    // The same backup without its checkpoints: checkpoint 1 was made before entries it holds, so it was deleted.
    const cut = path.join(dir, 'cut.sqlite');
    await writeFile(cut, await readFile(file));
    const raw = new SQLite(cut);
    raw.prepare('delete from audit_checkpoints').run();
    raw.close();
    const refused = await run(['restore', '--', cut, '--checkpoints', kept], {
      PORTAL_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'cut-')),
      DATABASE_URL: '',
    });
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('FAIL checkpoint 1, kept outside the database, is missing from it (it was made before entry 25)');
    expect(refused.out).toContain(
      'note not vouched for: users, api_tokens, deliveries, token_webhooks, alert_webhooks (no signed checkpoint in it)',
    );
  }, 90_000);
});
