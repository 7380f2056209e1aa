import { mkdtempSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import S3rver from 's3rver';
import { Client as PgClient } from 'pg';
import { postgresMissing, startPostgres, type TestPostgres } from '../support/postgres';
import { expect, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { waitUntil, type Instance } from '../support/instances';
import { DeliveriesPage } from '../support/pages/deliveries-page';
import { sessionCookie, walkSandbox } from '../support/session';
import { api, startDeliveryPortal, stopDeliveryPortals } from '../support/delivery-portal';

/**
 * Deliveries to a partner's own systems, set up on the form in Chromium: a Parquet file to an S3-compatible
 * bucket (s3rver) read back by DuckDB, picks kept in step in a table of the partner's PostgreSQL read back with
 * pg; and two instances on one PostgreSQL delivering each due time once.
 */

test.afterAll(() => stopDeliveryPortals());

test.describe.serial('deliveries to a partner’s systems', () => {
  let portal: Instance;
  let editor: ReturnType<typeof api>;
  const logs: string[] = [];

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    portal = await startDeliveryPortal(
      3247,
      {
        ...upstreamEnv(`http://127.0.0.1:${E2E.sandboxPort}`, E2E.sandboxKey),
        DELIVERY_ROOT: mkdtempSync(path.join(tmpdir(), 'delivery-root-')),
      },
      logs,
    );
    editor = api(portal.origin, await sessionCookie(portal.origin, 'editor'));
  });

  test('a Parquet file to an S3-compatible bucket (s3rver), set up on the form in Chromium, readable by DuckDB', async ({ page }) => {
    const s3 = new S3rver({
      port: 0,
      address: '127.0.0.1',
      directory: mkdtempSync(path.join(tmpdir(), 's3rver-')),
      silent: true,
      configureBuckets: [{ name: 'partner', configs: [] }],
    });
    const { port } = await s3.run();
    try {
      const deliveries = new DeliveriesPage(page, portal.origin);
      await deliveries.openAsEditor();
      const form = deliveries.form;
      await deliveries.field('Name').fill('Bucket parquet');
      await deliveries.field('Format').selectOption('parquet');
      await form.getByLabel('Sport', { exact: true }).selectOption('Tennis');
      await deliveries.field('Destination').selectOption('s3');
      await form.getByLabel('Bucket').fill('partner');
      await form.getByLabel('Region').fill('eu-west-1');
      await form.getByLabel(/^Endpoint/).fill(`http://127.0.0.1:${port}`);
      await form.getByLabel(/^Key prefix/).fill('tennis');
      await form.getByLabel('Access key id').fill('S3RVER');
      await form.getByLabel('Secret access key').fill('S3RVER');
      await deliveries.create();
      const created = deliveries.delivery('Bucket parquet');
      await expect(created).toContainText('picks as parquet → s3://partner/tennis/dt=…');
      // Test connection: the bucket answers, a probe object is written and removed, nothing delivered.
      await created.getByRole('button', { name: 'Test connection' }).click();
      // Its answer beside the button that asked, a step a line.
      const tested = created.getByTestId('connection-test');
      await expect(tested).toHaveAttribute('data-state', 'ok');
      await expect(tested.locator('li')).toHaveText([
        '✓ address: 127.0.0.1 may be delivered to',
        /^✓ \S+: s3:\/\/partner answers$/,
        /^✓ \S+: wrote tennis\/\.picks-portal-connection-test$/,
        /^✓ \S+: removed tennis\/\.picks-portal-connection-test$/,
      ]);
      await deliveries.runNow('Bucket parquet');
      await expect(page.getByTestId('run-note')).toHaveText(/^“Bucket parquet” ran: complete/, { timeout: 30_000 });
      const client = new S3Client({
        region: 'eu-west-1',
        endpoint: `http://127.0.0.1:${port}`,
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
      const keys = ((await client.send(new ListObjectsV2Command({ Bucket: 'partner', Prefix: 'tennis/dt=' }))).Contents ?? []).map(
        (o) => o.Key!,
      );
      expect(keys).toHaveLength(3);
      const key = keys.find((k) => k.endsWith('.parquet'))!;
      const file = path.join(mkdtempSync(path.join(tmpdir(), 's3-get-')), 'got.parquet');
      writeFileSync(file, await (await client.send(new GetObjectCommand({ Bucket: 'partner', Key: key }))).Body!.transformToByteArray());
      const duck = await (await DuckDBInstance.create(':memory:')).connect();
      const rows = (await duck.runAndReadAll(`select distinct sport from read_parquet('${file}')`)).getRowObjectsJS();
      expect(rows).toEqual([{ sport: 'Tennis' }]);
    } finally {
      await s3.close();
    }
  });

  test('picks kept in step in a table of the partner’s PostgreSQL, set up on the form in Chromium, read back with pg', async ({ page }) => {
    test.setTimeout(120_000);
    const server = await startPostgres();
    if (!server) return void test.skip(true, postgresMissing('the PostgreSQL table delivery'));
    const PASSWORD = 'warehouse-pw-never-shown-7c1';
    try {
      const url = new URL(await server.createDatabase('warehouse'));
      const deliveries = new DeliveriesPage(page, portal.origin);
      await deliveries.openAsEditor();
      const form = deliveries.form;
      await deliveries.field('Name').fill('Warehouse');
      await form.getByLabel('Sport', { exact: true }).selectOption('Tennis');
      await deliveries.field('Destination').selectOption('postgres');
      // A table holds a fixed set: the form's moving window is cleared, and it asks for no format.
      await expect(form.getByLabel('From')).toHaveValue('');
      await expect(form.getByLabel('Format')).toHaveCount(0);
      await form
        .getByLabel(/^Connection string/)
        .fill(`postgres://${url.username || 'postgres'}:${PASSWORD}@127.0.0.1:${url.port}/warehouse?sslmode=disable`);
      await form.getByLabel(/^Table/).fill('picks');
      await deliveries.create();
      const created = deliveries.delivery('Warehouse');
      await expect(created).toContainText(
        `picks → table public.picks in postgres://${url.username || 'postgres'}@127.0.0.1:${url.port}/warehouse`,
      );
      await created.getByRole('button', { name: 'Test connection' }).click();
      const tested = created.getByTestId('connection-test');
      await expect(tested).toHaveAttribute('data-state', 'ok');
      await expect(tested.locator('li')).toHaveText([
        '✓ address: 127.0.0.1 may be delivered to',
        /^✓ \S+: signed in to warehouse as \w+$/,
        /^✓ \S+: public\.picks is not there yet: the first run makes it and loads the whole set$/,
      ]);
      await deliveries.runNow('Warehouse');
      await expect(page.getByTestId('run-note')).toHaveText(/^“Warehouse” ran: complete/, { timeout: 30_000 });
      const expected = (await walkSandbox(`http://127.0.0.1:${E2E.sandboxPort}`, E2E.sandboxKey, 'picks', { sport: 'Tennis' })).map(
        (r) => r.id,
      );
      await expect(created.getByTestId('last-run')).toContainText(`full load: ${expected.length} inserted, 0 updated, 0 marked deleted`);
      const client = new PgClient({ connectionString: url.toString() });
      await client.connect();
      try {
        const rows = (await client.query<{ id: string; sport: string; _deleted: boolean }>('select id, sport, _deleted from public.picks'))
          .rows;
        expect(rows.map((r) => r.id).sort()).toEqual([...expected].sort());
        expect(new Set(rows.map((r) => `${r.sport} ${r._deleted}`))).toEqual(new Set(['Tennis false']));
        expect((await client.query('select count(*)::int as n from public.picks_syncs')).rows[0].n).toBe(1);
      } finally {
        await client.end();
      }
      // The password is in no answer, page or log.
      expect(await page.content()).not.toContain(PASSWORD);
      expect((await editor('GET', '/api/deliveries')).text).not.toContain(PASSWORD);
      expect(logs.join('\n')).not.toContain(PASSWORD);
    } finally {
      server.destroy();
    }
  });
});

test.describe.serial('deliveries on two instances sharing PostgreSQL', () => {
  let pg: TestPostgres | null = null;
  const root = mkdtempSync(path.join(tmpdir(), 'delivery-shared-'));

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    pg = await startPostgres();
    if (!pg) return void test.skip(true, postgresMissing('the two-instance delivery test'));
    const url = await pg.createDatabase('deliveries');
    for (const port of [3217, 3218])
      await startDeliveryPortal(port, {
        ...upstreamEnv(`http://127.0.0.1:${E2E.sandboxPort}`, E2E.sandboxKey),
        DATABASE_URL: url,
        DELIVERY_ROOT: root,
      });
  });
  test.afterAll(() => pg?.destroy());

  test('each due time is delivered once, whichever instance claims it', async () => {
    test.setTimeout(150_000);
    const editor = api('http://127.0.0.1:3217', await sessionCookie('http://127.0.0.1:3217', 'editor'));
    const created = await editor('POST', '/api/deliveries', {
      name: 'Shared minutely',
      kind: 'picks',
      format: 'csv',
      filters: { league: 'ATP Tour' },
      schedule: '* * * * *',
      destination: { type: 'directory', folder: 'shared' },
    });
    const id = created.json!.id as string;
    const complete = async () =>
      ((await editor('GET', `/api/deliveries/${id}/runs`)).json!.data as { outcome: string; dueMs: number }[]).filter(
        (r) => r.outcome === 'complete',
      );
    await waitUntil(async () => (await complete()).length >= 1, 'a due time delivered', 100_000);
    // Both instances check every 5 s: give the other one time to try the same due time, then stop the schedule.
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    await editor('PATCH', `/api/deliveries/${id}`, { paused: true });
    const runs = (await editor('GET', `/api/deliveries/${id}/runs`)).json!.data as { dueMs: number; outcome: string }[];
    const dues = runs.map((r) => r.dueMs);
    expect(new Set(dues).size).toBe(dues.length); // never two runs of one due time
    const files = (await readdir(path.join(root, 'shared'))).filter((n) => n.endsWith('.csv'));
    expect(files).toHaveLength(runs.filter((r) => r.outcome === 'complete').length);
  });
});
