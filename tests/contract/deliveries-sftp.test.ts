import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { sshdMissing, startSshd, type TestSshd } from '../support/sshd';
import { runVerifier, writeTestKeys } from '../support/proof';
import { addOwners } from '../support/new-delivery';

/**
 * SFTP deliveries into a real sshd (Debian's openssh-server, started here on a loopback port with a
 * throwaway user and key): the file and its manifest arrive complete under their final names; the server's
 * host key is pinned on first use, and a server whose key changed is refused with nothing uploaded.
 */

const NOW = Date.now();
let sandbox: Sandbox;
let sshd: TestSshd | null = null;
let skipped = '';

beforeAll(async () => {
  sshd = await startSshd();
  if (!sshd) {
    skipped = sshdMissing('the SFTP delivery tests');
    return;
  }
  sandbox = createSandbox({ now: () => NOW, rateLimit: null });
  const upstream = await sandbox.listen(0);
  const dir = await mkdtemp(path.join(tmpdir(), 'deliveries-sftp-'));
  Object.assign(process.env, {
    DATABASE_URL: '',
    PORTAL_DATA_DIR: dir,
    PORTAL_USERS_FILE: path.join(dir, 'none.json'),
    PICKS_API_BASE_URL: upstream,
    PICKS_API_KEY: 'sandbox-full-key',
    DELIVERY_SECRET_KEY: 'a-test-delivery-secret-key-0123456789',
  });
}, 60_000);
afterAll(async () => {
  sshd?.stop();
  await (await import('@/lib/store')).closeStore();
  await sandbox?.close();
});

describe('an SFTP delivery', () => {
  it('uploads under a temporary name, renames after the last byte, pins the host key, and refuses a changed one', async (test) => {
    if (!sshd) return test.skip(skipped);
    const { getStore } = await import('@/lib/store');
    const store = await import('@/lib/store/deliveries');
    const { runNow } = await import('@/lib/deliveries/scheduler');
    const { sealSecret, secretBinding } = await import('@/lib/deliveries/secrets');
    const db = (await getStore()).db;
    const key = process.env.DELIVERY_SECRET_KEY!;
    const ctx = { db, instance: 'a', settings: { root: '/nonexistent', secretKey: key, allowPrivate: true } };
    const destination = { type: 'sftp' as const, host: '127.0.0.1', port: sshd.port, username: sshd.username, path: 'incoming/daily' };
    await addOwners(db);
    await store.insertDelivery(db, {
      id: 'dlv_00000000000000a1',
      name: 'Partner SFTP',
      kind: 'results',
      format: 'csv',
      filters: { from: 'today-10d', to: 'today' },
      schedule: '0 6 * * *',
      destination,
      secret: sealSecret(JSON.stringify({ privateKey: sshd.privateKey }), key, secretBinding(destination)!),
      createdBy: 'ana@example.com',
      createdAt: new Date(NOW).toISOString(),
      updatedAt: new Date(NOW).toISOString(),
      lastDueMs: NOW,
    });
    await (
      await runNow(ctx, (await store.findDelivery(db, 'dlv_00000000000000a1'))!)
    ).done;
    const [run] = await store.listRuns(db, 'dlv_00000000000000a1');
    expect(run).toMatchObject({ outcome: 'complete', error: null });
    const folder = path.join(sshd.home, 'incoming', 'daily');
    const names = (await readdir(folder)).sort();
    expect(names).toHaveLength(3);
    expect(names[0]).toMatch(/^partner-sftp-results-\d{8}T\d{6}Z-[a-f0-9]{6}\.csv$/);
    expect(names.slice(1)).toEqual([`${names[0]}.manifest.json`, `${names[0]}.manifest.jws`]);
    const bytes = await readFile(path.join(folder, names[0]!));
    const manifest = JSON.parse(await readFile(path.join(folder, names[1]!), 'utf8'));
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(run!.sha256);
    expect(manifest).toMatchObject({ sha256: run!.sha256, records: run!.records, kind: 'results' });
    expect(run!.records).toBeGreaterThan(50);
    expect(bytes.toString().trim().split('\r\n')).toHaveLength(run!.records! + 1);
    // What arrived on the SFTP server verifies with the public key alone.
    const checked = await runVerifier([path.join(folder, names[0]!), '--keys', await writeTestKeys(path.join(sshd.home, 'keys.json'))]);
    expect(checked.out).toContain(`ok   records: ${run!.records}`);
    expect(checked.code).toBe(0);
    const pinned = (await store.findDelivery(db, 'dlv_00000000000000a1'))!.hostKey;
    expect(pinned).toBe(sshd.fingerprint);

    const offered = await sshd.rotateHostKey();
    await (
      await runNow(ctx, (await store.findDelivery(db, 'dlv_00000000000000a1'))!)
    ).done;
    const [refused] = await store.listRuns(db, 'dlv_00000000000000a1');
    expect(refused).toMatchObject({ outcome: 'failed' });
    expect(refused!.error).toContain(`host key changed: pinned ${pinned}, offered ${offered}`);
    expect(await readdir(folder)).toHaveLength(3);

    // An admin re-pins: the pin is cleared, and the next run's first handshake pins the key now offered.
    await store.updateDelivery(db, 'dlv_00000000000000a1', { hostKey: null });
    await (
      await runNow(ctx, (await store.findDelivery(db, 'dlv_00000000000000a1'))!)
    ).done;
    expect((await store.listRuns(db, 'dlv_00000000000000a1'))[0]).toMatchObject({ outcome: 'complete' });
    expect((await store.findDelivery(db, 'dlv_00000000000000a1'))!.hostKey).toBe(offered);
    expect(await readdir(folder)).toHaveLength(6);

    // Trust on first use happens at the handshake, before authenticating: a first run whose sign-in fails
    // has pinned the key all the same, so a later impostor gets no credential.
    const wrongPassword = { ...destination, username: 'nobody-here' };
    await addOwners(db);
    await store.insertDelivery(db, {
      id: 'dlv_00000000000000a2',
      name: 'Wrong user',
      kind: 'results',
      format: 'csv',
      filters: { from: 'today-1d', to: 'today' },
      schedule: '0 6 * * *',
      destination: wrongPassword,
      secret: sealSecret(JSON.stringify({ password: 'not-the-password' }), key, secretBinding(wrongPassword)!),
      createdBy: 'ana@example.com',
      createdAt: new Date(NOW).toISOString(),
      updatedAt: new Date(NOW).toISOString(),
      lastDueMs: NOW,
    });
    await (
      await runNow(ctx, (await store.findDelivery(db, 'dlv_00000000000000a2'))!)
    ).done;
    expect((await store.listRuns(db, 'dlv_00000000000000a2'))[0]).toMatchObject({ outcome: 'failed' });
    expect((await store.findDelivery(db, 'dlv_00000000000000a2'))!.hostKey).toBe(offered);

    // A secret bound to another destination is never opened, even if the store were edited behind the API's back.
    await store.updateDelivery(db, 'dlv_00000000000000a1', { destination: { ...destination, username: 'someone-else' } });
    await (
      await runNow(ctx, (await store.findDelivery(db, 'dlv_00000000000000a1'))!)
    ).done;
    const [moved] = await store.listRuns(db, 'dlv_00000000000000a1');
    expect(moved).toMatchObject({ outcome: 'failed' });
    expect(moved!.error).toMatch(/secret was not used: .*saved for another destination/);

    // Test connection, without delivering: each step in plain words, the first failure ending it.
    const { probeDelivery } = await import('@/lib/deliveries/probe');
    const probe = { allowPrivate: true, secretKey: key };
    const said = async (id: string) =>
      (await probeDelivery((await store.findDelivery(db, id))!, probe)).steps.map((s) => `${s.step} ${s.ok ? '✓' : '✗'} ${s.detail}`);
    await store.updateDelivery(db, 'dlv_00000000000000a1', { destination });
    expect(await said('dlv_00000000000000a1')).toEqual([
      '127.0.0.1 may be delivered to'.replace(/^/, 'address ✓ '),
      `host key ✓ the server's key is the pinned one (${offered})`,
      `sign-in ✓ signed in as ${sshd.username}`,
      'folder ✓ the folder incoming/daily is there',
    ]);
    expect((await said('dlv_00000000000000a2')).slice(1)).toEqual([
      `host key ✓ the server's key is the pinned one (${offered})`,
      'sign-in ✗ nobody-here was refused: check the password or private key',
    ]);
    // A changed key gets no credential; a port where nothing listens says so, naming only what was typed.
    const impostor = await sshd.rotateHostKey();
    expect((await said('dlv_00000000000000a1')).slice(1)).toEqual([
      `host key ✗ the server's key changed: pinned ${offered}, offered ${impostor}; no credential was sent`,
    ]);
    const nobody = { ...destination, port: 9 };
    const secret = sealSecret(JSON.stringify({ privateKey: sshd.privateKey }), key, secretBinding(nobody)!);
    await store.updateDelivery(db, 'dlv_00000000000000a1', { destination: nobody, secret, hostKey: null });
    expect((await said('dlv_00000000000000a1')).slice(1)).toEqual([
      'connection ✗ could not connect to 127.0.0.1:9: no SSH server answered in time',
    ]);
  }, 60_000);
});
