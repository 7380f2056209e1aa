import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerContext } from '@/lib/deliveries/scheduler';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { runVerifier, writeTestKeys } from '../support/proof';
import { deliveryMaker } from '../support/new-delivery';

/**
 * Deliveries to S3-compatible object storage, against s3rver (an S3 server on loopback, started here) through the
 * AWS SDK v3, on the embedded store: the file under `<prefix>/dt=<day>/` with its manifest and JWS beside it, equal
 * record for record to a walk and checked by the offline verifier; a run the storage refuses leaves no object under
 * its key and says why; credentials do not follow a delivery to another endpoint, bucket or key; a private endpoint
 * is refused unless private targets are allowed.
 */

const NOW = Date.now();
const KEY = 'sandbox-full-key';
const SECRET_KEY = 'a-test-delivery-secret-key-0123456789';
let sandbox: Sandbox;
let upstream = '';
let s3: S3rver;
let endpoint = '';
let ctx: SchedulerContext;
let api: typeof import('@/lib/deliveries/scheduler');
let store: typeof import('@/lib/store/deliveries');
let check: typeof import('@/lib/deliveries/check');
let db: Awaited<ReturnType<(typeof import('@/lib/store'))['getStore']>>['db'];
let keys = '';

beforeAll(async () => {
  sandbox = createSandbox({ now: () => NOW, rateLimit: null });
  upstream = await sandbox.listen(0);
  const dir = await mkdtemp(path.join(tmpdir(), 'deliveries-s3-'));
  s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    directory: path.join(dir, 's3'),
    silent: true,
    configureBuckets: [{ name: 'partner', configs: [] }],
  });
  const { port } = await s3.run();
  endpoint = `http://127.0.0.1:${port}`;
  Object.assign(process.env, {
    DATABASE_URL: '',
    PORTAL_DATA_DIR: dir,
    PORTAL_USERS_FILE: path.join(dir, 'none.json'),
    PICKS_API_BASE_URL: upstream,
    PICKS_API_KEY: KEY,
    PICKS_API_MAX_RETRIES: '0',
    DELIVERY_ROOT: path.join(dir, 'out'),
    DELIVERY_SECRET_KEY: SECRET_KEY,
  });
  const { getStore } = await import('@/lib/store');
  db = (await getStore()).db;
  api = await import('@/lib/deliveries/scheduler');
  store = await import('@/lib/store/deliveries');
  check = await import('@/lib/deliveries/check');
  ctx = { db, instance: 'a', settings: { root: path.join(dir, 'out'), secretKey: SECRET_KEY, allowPrivate: true } };
  keys = await writeTestKeys(path.join(dir, 'keys.json'));
});
afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  await s3.close();
  await sandbox.close();
});

const newDelivery = deliveryMaker(
  () => db,
  (n) => ({
    name: `Bucket ${n}`,
    kind: 'picks',
    format: 'csv',
    filters: { sport: 'Tennis', from: 'today-3d', to: 'today+4d' },
    destination: { type: 'directory', folder: 'unused' },
  }),
  { now: NOW },
);

const checkContext = (allowPrivate = true) => ({ allowPrivate, secretKey: SECRET_KEY, minIntervalMinutes: 1 });
const input = (destination: Record<string, unknown>) => ({
  name: 'To the bucket',
  kind: 'picks',
  format: 'csv',
  filters: { sport: 'Tennis' },
  schedule: '0 6 * * *',
  destination: {
    type: 's3',
    bucket: 'partner',
    region: 'eu-west-1',
    endpoint,
    prefix: 'exports/picks',
    accessKeyId: 'S3RVER',
    ...destination,
  },
});
const reader = () =>
  new S3Client({ region: 'eu-west-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
const keysIn = async (prefix: string) =>
  ((await reader().send(new ListObjectsV2Command({ Bucket: 'partner', Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);

describe('a delivery to S3-compatible object storage', () => {
  it('places the file under the prefix and the day, its manifest and JWS beside it; the verifier accepts it', async () => {
    const checked = await check.checkDelivery(input({ secretAccessKey: 'S3RVER' }), null, checkContext());
    expect(checked.secret).toMatch(/^v2\./);
    const delivery = await newDelivery({ destination: checked.destination, secret: checked.secret });
    await (
      await api.runNow(ctx, delivery)
    ).done;
    const [run] = await store.listRuns(db, delivery.id);
    expect(run).toMatchObject({ outcome: 'complete', error: null });
    const day = new Date(run!.startedAt).toISOString().slice(0, 10);
    const name = path.basename(run!.file!);
    expect(run!.file).toBe(`s3://partner/exports/picks/dt=${day}/${name}`);
    expect((await keysIn(`exports/picks/dt=${day}/`)).sort()).toEqual(
      [name, `${name}.manifest.json`, `${name}.manifest.jws`].map((k) => `exports/picks/dt=${day}/${k}`),
    );
    const get = async (key: string) =>
      Buffer.from(await (await reader().send(new GetObjectCommand({ Bucket: 'partner', Key: key }))).Body!.transformToByteArray());
    const bytes = await get(`exports/picks/dt=${day}/${name}`);
    const manifest = JSON.parse((await get(`exports/picks/dt=${day}/${name}.manifest.json`)).toString('utf8'));
    expect(manifest).toMatchObject({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    const local = path.join(await mkdtemp(path.join(tmpdir(), 's3-got-')), name);
    await writeFile(local, bytes);
    await writeFile(`${local}.manifest.json`, await get(`exports/picks/dt=${day}/${name}.manifest.json`));
    await writeFile(`${local}.manifest.jws`, await get(`exports/picks/dt=${day}/${name}.manifest.jws`));
    const verified = await runVerifier([local, '--keys', keys]);
    expect(verified.out).toContain(`ok   records: ${manifest.records}`);
    expect(verified.code).toBe(0);
  });

  it('leaves no object under its key when the storage refuses, and says why', async () => {
    const checked = await check.checkDelivery(
      input({ bucket: 'no-such-bucket', prefix: 'refused', secretAccessKey: 'S3RVER' }),
      null,
      checkContext(),
    );
    const delivery = await newDelivery({ destination: checked.destination, secret: checked.secret });
    await (
      await api.runNow(ctx, delivery)
    ).done;
    const [run] = await store.listRuns(db, delivery.id);
    expect(run).toMatchObject({ outcome: 'failed' });
    expect(run!.error).toMatch(/^DELIVERY_FAILED: The object storage did not take the file \(NoSuchBucket/);
    expect(await keysIn('refused/')).toEqual([]);
  });

  it('tests the connection without delivering: every step said, the probe object removed, a wrong key or bucket named', async () => {
    const { probeDelivery } = await import('@/lib/deliveries/probe');
    const context = { allowPrivate: true, secretKey: SECRET_KEY };
    const good = await check.checkDelivery(input({ prefix: 'probe', secretAccessKey: 'S3RVER' }), null, checkContext());
    const tried = await probeDelivery(await newDelivery({ destination: good.destination, secret: good.secret }), context);
    expect(tried.ok).toBe(true);
    expect(tried.steps.map((s) => [s.step, s.ok])).toEqual([
      ['address', true],
      ['bucket', true],
      ['write', true],
      ['remove', true],
    ]);
    expect(await keysIn('probe/')).toEqual([]);
    expect(await keysIn('exports/')).not.toContain('probe/.picks-portal-connection-test');
    const missing = await check.checkDelivery(input({ bucket: 'no-such-bucket', secretAccessKey: 'S3RVER' }), null, checkContext());
    const refused = await probeDelivery(await newDelivery({ destination: missing.destination, secret: missing.secret }), context);
    expect(refused.ok).toBe(false);
    expect(refused.steps.at(-1)).toMatchObject({ step: 'bucket', ok: false, detail: expect.stringContaining('HTTP 404') });
    const wrongKey = await check.checkDelivery(input({ accessKeyId: 'NOT-A-KEY', secretAccessKey: 'x' }), null, checkContext());
    const denied = await probeDelivery(await newDelivery({ destination: wrongKey.destination, secret: wrongKey.secret }), context);
    expect(denied.steps.at(-1)).toMatchObject({ step: 'bucket', ok: false, detail: expect.stringContaining('HTTP 403') });
    expect(await keysIn('')).not.toContain('.picks-portal-connection-test');
  });

  it('keeps credentials with the endpoint, bucket and key they were entered for, and refuses a private endpoint unless allowed', async () => {
    const first = await check.checkDelivery(input({ secretAccessKey: 'S3RVER' }), null, checkContext());
    const saved = await newDelivery({ destination: first.destination, secret: first.secret });
    for (const moved of [{ bucket: 'elsewhere' }, { endpoint: 'http://127.0.0.1:9' }, { accessKeyId: 'OTHER' }]) {
      const refused = await check
        .checkDelivery(input(moved), saved, checkContext())
        .catch((error: { details: Record<string, string> }) => error);
      expect((refused as { details: Record<string, string> }).details['destination.secretAccessKey']).toMatch(
        /^must be entered again: the saved one belongs to s3:\/\/partner/,
      );
    }
    // The same place keeps its secret; a new prefix is the same place.
    const kept = await check.checkDelivery(input({ prefix: 'other/prefix' }), saved, checkContext());
    expect(kept.secret).toBe(saved.secret);
    const privateRefused = await check
      .checkDelivery(input({ secretAccessKey: 'S3RVER' }), null, checkContext(false))
      .catch((e: { details: Record<string, string> }) => e);
    expect((privateRefused as { details: Record<string, string> }).details).toMatchObject({
      'destination.endpoint':
        'must be an https URL (plain http only to a loopback or private target, with DELIVERY_ALLOW_PRIVATE_TARGETS=1)',
    });
  });
});
