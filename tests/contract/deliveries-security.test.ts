import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerContext } from '@/lib/deliveries/scheduler';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import * as openpgp from 'openpgp';
import { startSshd, type TestSshd } from '../support/sshd';
import { runVerifier, writeTestKeys } from '../support/proof';
import { deliveryMaker } from '../support/new-delivery';

/**
 * The delivery fixes of the second security review that live below the HTTP API, against the sandbox
 * on the embedded store: DNS rebinding (a resolver that answers otherwise the second time), folders
 * reached through a link, the spool's free-space check, and secrets saved before binding.
 */

const NOW = Date.now();
let sandbox: Sandbox;
let root = '';
let outside = '';
let ctx: SchedulerContext;
let api: typeof import('@/lib/deliveries/scheduler');
let store: typeof import('@/lib/store/deliveries');
let secrets: typeof import('@/lib/deliveries/secrets');
let db: Awaited<ReturnType<(typeof import('@/lib/store'))['getStore']>>['db'];
const KEY = 'a-test-delivery-secret-key-0123456789';

beforeAll(async () => {
  sandbox = createSandbox({ now: () => NOW, rateLimit: null });
  const upstream = await sandbox.listen(0);
  const dir = await mkdtemp(path.join(tmpdir(), 'deliveries-security-'));
  root = path.join(dir, 'root');
  outside = path.join(dir, 'outside');
  await mkdir(root);
  await mkdir(outside);
  Object.assign(process.env, {
    DATABASE_URL: '',
    PORTAL_DATA_DIR: dir,
    PORTAL_USERS_FILE: path.join(dir, 'none.json'),
    PICKS_API_BASE_URL: upstream,
    PICKS_API_KEY: 'sandbox-full-key',
    DELIVERY_ROOT: root,
    DELIVERY_SECRET_KEY: KEY,
  });
  db = (await (await import('@/lib/store')).getStore()).db;
  api = await import('@/lib/deliveries/scheduler');
  store = await import('@/lib/store/deliveries');
  secrets = await import('@/lib/deliveries/secrets');
  ctx = { db, instance: 'a', settings: { root, secretKey: KEY, allowPrivate: false } };
});
afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  await sandbox.close();
});

const newDelivery = deliveryMaker(
  () => db,
  (n) => ({
    name: `Guarded ${n}`,
    kind: 'results',
    format: 'csv',
    filters: { from: 'today-2d', to: 'today' },
    destination: { type: 'directory', folder: '' },
  }),
  { now: NOW, firstId: 0xb000 },
);

const lastRun = async (id: string) => (await store.listRuns(db, id))[0]!;

/** A receiver on one loopback address that counts what reaches it; `answers` are its statuses, in turn. */
async function receiver(host: string, port: number, answers: number[] = [204]) {
  const hits: string[] = [];
  const server = http.createServer(async (req, res) => {
    for await (const _ of req);
    hits.push(String(req.headers['x-picks-file']));
    res.writeHead(answers[Math.min(hits.length - 1, answers.length - 1)]!).end();
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return { hits, port: (server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(r)) };
}

describe('DNS rebinding', () => {
  it('a webhook connects to the address that was checked, on every attempt, whatever a second lookup would say', async () => {
    const checked = await receiver('127.0.0.2', 0, [503, 204]); // the first attempt fails: the retry must go to the same place
    const rebound = await receiver('127.0.0.1', checked.port);
    const answers = ['127.0.0.2', '127.0.0.1'];
    const lookups: string[] = [];
    const settings = {
      ...ctx.settings,
      resolver: async (host: string) => {
        lookups.push(host);
        return [{ address: answers[Math.min(lookups.length - 1, 1)]!, family: 4 as const }];
      },
      // Stands in for "the public internet": 127.0.0.2 passes the check, 127.0.0.1 would not.
      allowedAddress: (address: string) => address === '127.0.0.2',
    };
    const url = `http://hooks.rebind.test:${checked.port}/in`;
    const delivery = await newDelivery({
      destination: { type: 'webhook', url },
      secret: secrets.sealSecret('whsec-0123456789abcdef', KEY, secrets.secretBinding({ type: 'webhook', url })!),
    });
    try {
      await (
        await api.runNow({ ...ctx, settings: { ...settings, allowPrivate: true } }, delivery)
      ).done;
      expect(await lastRun(delivery.id)).toMatchObject({ outcome: 'complete' });
      expect(lookups).toEqual(['hooks.rebind.test']); // resolved once for the run
      expect(checked.hits).toHaveLength(2);
      expect(rebound.hits).toEqual([]);

      // Answered with an address that is not allowed: refused before any connection.
      answers.splice(0, 2, '127.0.0.1', '127.0.0.1');
      lookups.length = 0;
      await (
        await api.runNow({ ...ctx, settings: { ...settings, allowPrivate: false } }, delivery)
      ).done;
      const refused = await lastRun(delivery.id);
      expect(refused).toMatchObject({ outcome: 'failed' });
      expect(refused.error).toMatch(/hooks\.rebind\.test is not on the public internet \(it resolves to a private address\)/);
      expect(refused.error).not.toContain('127.0.0.1');
      expect(rebound.hits).toEqual([]);
      expect(checked.hits).toHaveLength(2);
    } finally {
      await checked.close();
      await rebound.close();
    }
  });

  it('an SFTP run connects to the checked address, not to a name ssh2 would look up again', async (test) => {
    const sshd: TestSshd | null = await startSshd();
    if (!sshd) return test.skip('openssh-server is not installed');
    try {
      const destination = { type: 'sftp' as const, host: 'sftp.rebind.test', port: sshd.port, username: sshd.username, path: 'in' };
      const delivery = await newDelivery({
        destination,
        secret: secrets.sealSecret(JSON.stringify({ privateKey: sshd.privateKey }), KEY, secrets.secretBinding(destination)!),
      });
      const lookups: string[] = [];
      const resolver = async (host: string) => {
        lookups.push(host);
        return [{ address: lookups.length === 1 ? '127.0.0.1' : '127.0.0.9', family: 4 as const }];
      };
      const settings = { ...ctx.settings, allowPrivate: true, resolver };
      await (
        await api.runNow({ ...ctx, settings }, delivery)
      ).done;
      expect(await lastRun(delivery.id)).toMatchObject({ outcome: 'complete' });
      expect(lookups).toEqual(['sftp.rebind.test']);
      expect(await readdir(path.join(sshd.home, 'in'))).toHaveLength(3); // the file, its manifest and the manifest’s JWS
    } finally {
      sshd.stop();
    }
  }, 60_000);
});

describe('folder deliveries', () => {
  it('create nothing outside DELIVERY_ROOT through a link inside it', async () => {
    await symlink(outside, path.join(root, 'escape'));
    for (const folder of ['escape/sub/deeper', 'escape']) {
      const delivery = await newDelivery({ destination: { type: 'directory', folder } });
      await (
        await api.runNow(ctx, delivery)
      ).done;
      const run = await lastRun(delivery.id);
      expect(run).toMatchObject({ outcome: 'failed' });
      expect(run.error).toMatch(/leads out of DELIVERY_ROOT through a link/);
    }
    expect(await readdir(outside)).toEqual([]);
    // A real folder under the root still works, made level by level.
    const fine = await newDelivery({ destination: { type: 'directory', folder: 'a/b/c' } });
    await (
      await api.runNow(ctx, fine)
    ).done;
    expect(await lastRun(fine.id)).toMatchObject({ outcome: 'complete' });
    expect(await readdir(path.join(root, 'a', 'b', 'c'))).toHaveLength(3); // the file, its manifest and the manifest’s JWS
  });
});

describe('the spool', () => {
  it('refuses to start a run without the free space it needs, and says so', async () => {
    const delivery = await newDelivery({ destination: { type: 'directory', folder: 'spool-check' } });
    const settings = { ...ctx.settings, spoolDir: path.join(root, '..', 'spool'), spoolMinFreeMb: 1_000_000_000 };
    await expect(api.runNow({ ...ctx, settings }, delivery)).rejects.toMatchObject({
      code: 'DELIVERY_NO_SPACE',
      message: expect.stringMatching(/MB free and a run needs at least 1000000000 MB \(DELIVERY_SPOOL_MIN_FREE_MB\)/),
    });
    expect(await store.listRuns(db, delivery.id)).toEqual([]);
    await (
      await api.runNow({ ...ctx, settings: { ...settings, spoolMinFreeMb: 1 } }, delivery)
    ).done;
    expect(await lastRun(delivery.id)).toMatchObject({ outcome: 'complete' });
    expect(await readdir(settings.spoolDir)).toEqual([]); // the spooled copy is gone once delivered
  });
});

describe('secrets saved before binding', () => {
  it('are bound once to the destination they have, then open only for it', async () => {
    const { createCipheriv, createHash, randomBytes } = await import('node:crypto');
    // A v1 secret as the previous version sealed it: no additional data.
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(`picks-portal/delivery-secrets\0${KEY}`).digest(), iv);
    const body = Buffer.concat([cipher.update('whsec-legacy-0123456789', 'utf8'), cipher.final()]);
    const legacy = ['v1', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    const url = 'https://hooks.example.com/legacy';
    const delivery = await newDelivery({ destination: { type: 'webhook', url }, secret: legacy });
    const { bindLegacySecrets } = await import('@/lib/deliveries/start');
    expect(await bindLegacySecrets(db, KEY)).toBe(1);
    const bound = (await store.findDelivery(db, delivery.id))!.secret!;
    expect(bound).toMatch(/^v2\./);
    expect(secrets.openSecret(bound, KEY, secrets.secretBinding({ type: 'webhook', url }))).toBe('whsec-legacy-0123456789');
    expect(() =>
      secrets.openSecret(bound, KEY, secrets.secretBinding({ type: 'webhook', url: 'https://evil.example.com/legacy' })),
    ).toThrow();
    expect(await bindLegacySecrets(db, KEY)).toBe(0);
  });
});

describe('protected files at rest', () => {
  const recipient = () =>
    openpgp.generateKey({ type: 'curve25519', userIDs: [{ name: 'Recipient', email: 'files@partner.test' }], format: 'armored' });

  it('checks the recipient key on save, naming the field: not a key, a private key; a good one gives its fingerprint', async () => {
    const { checkDelivery } = await import('@/lib/deliveries/check');
    const { publicKey, privateKey } = await recipient();
    const base = {
      name: 'Sealed',
      kind: 'results',
      format: 'csv',
      schedule: '0 6 * * *',
      filters: {},
      destination: { type: 'directory', folder: 'sealed' },
    };
    const context = { allowPrivate: false, secretKey: KEY, minIntervalMinutes: 15 };
    const refused = async (encryptTo: string) =>
      (await checkDelivery({ ...base, encryptTo }, null, context).catch((error: { details: Record<string, string> }) => error)) as {
        details: Record<string, string>;
      };
    expect((await refused('not a key')).details.encryptTo).toBe(
      'must be an armoured OpenPGP public key (-----BEGIN PGP PUBLIC KEY BLOCK-----)',
    );
    expect((await refused(privateKey)).details.encryptTo).toMatch(/^is a private key: give the recipient’s public key/);
    const checked = await checkDelivery({ ...base, encryptTo: publicKey }, null, context);
    const fingerprint = (await openpgp.readKey({ armoredKey: publicKey })).getFingerprint().toUpperCase();
    expect(checked.encryptTo).toMatchObject({ fingerprint });
  });

  it('places only <file>.pgp and the signed manifest of the clear file: decrypted with the right key it verifies; another key fails', async () => {
    const { publicKey, privateKey } = await recipient();
    const fingerprint = (await openpgp.readKey({ armoredKey: publicKey })).getFingerprint().toUpperCase();
    const delivery = await newDelivery({
      destination: { type: 'directory', folder: 'sealed' },
      encryptTo: { armoured: publicKey, fingerprint },
    });
    await (
      await api.runNow(ctx, delivery)
    ).done;
    const run = await lastRun(delivery.id);
    expect(run).toMatchObject({ outcome: 'complete', error: null });
    const folder = path.join(root, 'sealed');
    const names = (await readdir(folder)).sort();
    const clear = names.find((n) => n.endsWith('.csv.manifest.json'))!.replace(/\.manifest\.json$/, '');
    expect(names).toEqual([`${clear}.manifest.json`, `${clear}.manifest.jws`, `${clear}.pgp`]); // never the clear file
    const manifest = JSON.parse(await readFile(path.join(folder, `${clear}.manifest.json`), 'utf8'));
    expect(manifest).toMatchObject({ file: clear, encryption: { format: 'openpgp', recipient: fingerprint, placedAs: `${clear}.pgp` } });
    expect(run.file).toBe(`${path.join('sealed', clear)}.pgp`);

    const sealed = await readFile(path.join(folder, `${clear}.pgp`));
    const message = await openpgp.readMessage({ binaryMessage: sealed });
    const { data } = await openpgp.decrypt({
      message,
      decryptionKeys: await openpgp.readPrivateKey({ armoredKey: privateKey }),
      format: 'binary',
    });
    // The recipient decrypts beside the manifest, then verifies the clear file with the public key alone.
    await writeFile(path.join(folder, clear), data as Uint8Array);
    const checked = await runVerifier([path.join(folder, clear), '--keys', await writeTestKeys(path.join(root, 'keys.json'))]);
    expect(checked.out).toContain(`ok   sha256: ${manifest.sha256}`);
    expect(checked.code).toBe(0);

    const stranger = await recipient();
    await expect(
      openpgp.decrypt({ message, decryptionKeys: await openpgp.readPrivateKey({ armoredKey: stranger.privateKey }) }),
    ).rejects.toThrow(/Session key decryption failed|decrypt/i);
  }, 30_000);
});
