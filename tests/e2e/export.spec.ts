import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Papa from 'papaparse';
import { CSV_COLUMNS } from '@/lib/export/csv';
import { expect, signIn, test } from '../support/fixtures';
import { E2E, e2eDay } from '../support/ports';
import { sessionCookie, walkSandbox } from '../support/session';
import { RecordsPage, recordsTable } from '../support/pages/records-page';

/**
 * Exports over real HTTP: the portal's route handlers, walking the sandbox. Expected record sets come
 * from a direct walk of the sandbox API with the same filters (date-only values converted as the
 * portal documents: from = that UTC day's start, to = the next day's start).
 */

const portal = `http://127.0.0.1:${E2E.port}`;
const faulty = `http://127.0.0.1:${E2E.faultyPort}`;
const sandbox = `http://127.0.0.1:${E2E.sandboxPort}`;
const proxy = `http://127.0.0.1:${E2E.faultProxyPort}`;

/** Opens the Export menu beside the pager (CSV, JSON, the BOM and which fields a CSV leaves out), if it is closed. */
async function openExport(page: import('@playwright/test').Page) {
  const menu = page.getByTestId('export-menu');
  if (!(await menu.evaluate((details) => (details as HTMLDetailsElement).open))) await menu.locator('summary').click();
}

const SETS: { name: string; kind: 'picks' | 'results'; portal: Record<string, string>; api: Record<string, string> }[] = [
  { name: 'a sport', kind: 'picks', portal: { sport: 'Football' }, api: { sport: 'Football' } },
  {
    name: 'a league with &',
    kind: 'picks',
    portal: { league: 'Trinidad & Tobago Premier League' },
    api: { league: 'Trinidad & Tobago Premier League' },
  },
  {
    name: 'a date range',
    kind: 'picks',
    portal: { from: e2eDay(-19), to: e2eDay(-11) },
    api: { from: `${e2eDay(-19)}T00:00:00.000Z`, to: `${e2eDay(-10)}T00:00:00.000Z` },
  },
  {
    name: 'status, result and sport',
    kind: 'picks',
    portal: { sport: 'Basketball', status: 'settled', result: 'win' },
    api: { sport: 'Basketball', status: 'settled', result: 'win' },
  },
  { name: 'every pick', kind: 'picks', portal: {}, api: {} },
  { name: 'results of a league', kind: 'results', portal: { league: 'NBA' }, api: { league: 'NBA' } },
];

let editor: string;
test.beforeAll(async () => {
  editor = await sessionCookie(portal, 'editor');
});

async function exportOf(kind: string, params: Record<string, string>, cookie = editor, origin = portal, signal?: AbortSignal) {
  return fetch(`${origin}/api/export/${kind}?${new URLSearchParams(params)}`, { headers: { cookie }, signal });
}

for (const set of SETS) {
  test(`CSV and JSON of ${set.name} hold exactly the records the API walk returns`, async () => {
    const expected = (await walkSandbox(sandbox, E2E.sandboxKey, set.kind, set.api)).map((p) => p.id);
    expect(expected.length).toBeGreaterThan(0);

    const csvRes = await exportOf(set.kind, { ...set.portal, format: 'csv' });
    expect(csvRes.status).toBe(200);
    expect(csvRes.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csvRes.headers.get('cache-control')).toBe('private, no-store, no-transform');
    expect(csvRes.headers.get('content-encoding')).toBeNull();
    expect(csvRes.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename="${set.kind}[a-z0-9-]*-\\d{8}T\\d{6}Z\\.csv"$`),
    );
    const csv = Papa.parse<Record<string, string>>(await csvRes.text(), { header: true, skipEmptyLines: true });
    expect(csv.errors).toEqual([]);
    expect(csv.meta.fields).toEqual(CSV_COLUMNS);
    const csvIds = csv.data.map((row) => row.id);
    expect(csvIds).toEqual(expected);
    expect(new Set(csvIds).size).toBe(csvIds.length);

    const jsonRes = await exportOf(set.kind, { ...set.portal, format: 'json' });
    expect(jsonRes.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const json = (await jsonRes.json()) as {
      export: { endpoint: string; filters: Record<string, string> };
      data: { id: string }[];
      count: number;
    };
    expect(json.data.map((p) => p.id)).toEqual(expected);
    expect(json.count).toBe(expected.length);
    expect(json.export).toMatchObject({ endpoint: `/api/v1/${set.kind}`, filters: set.portal });

    const linesRes = await exportOf(set.kind, { ...set.portal, format: 'jsonl' });
    expect(linesRes.headers.get('content-type')).toBe('application/jsonl; charset=utf-8');
    const lines = await linesRes.text();
    expect(lines.endsWith('\n')).toBe(true);
    expect(
      lines
        .slice(0, -1)
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(json.data);

    // Parquet, read by DuckDB: the same records, in order.
    const parquetRes = await exportOf(set.kind, { ...set.portal, format: 'parquet' });
    expect(parquetRes.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'export-parquet-')), 'set.parquet');
    await writeFile(file, Buffer.from(await parquetRes.arrayBuffer()));
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const read = (await duck.runAndReadAll(`select id from read_parquet('${file}')`)).getRowObjectsJS().map((row) => row.id);
    expect(read).toEqual(expected);
  });
}

test('JSON keeps each record exactly as the upstream delivered it', async () => {
  const direct = await walkSandbox(sandbox, E2E.sandboxKey, 'picks', { league: 'Premier League' });
  const json = (await (await exportOf('picks', { league: 'Premier League', format: 'json' })).json()) as { data: unknown[] };
  expect(JSON.stringify(json.data)).toBe(JSON.stringify(direct));
});

test('an export ignores the page on screen: limit and cursor do not shorten it', async () => {
  const all = (await walkSandbox(sandbox, E2E.sandboxKey, 'picks', { sport: 'Tennis' })).length;
  const json = (await (await exportOf('picks', { sport: 'Tennis', limit: '5', format: 'json' })).json()) as { count: number };
  expect(json.count).toBe(all);
});

test('CSV with a byte-order mark for spreadsheets', async () => {
  const bytes = new Uint8Array(await (await exportOf('picks', { sport: 'Cricket', format: 'csv', bom: '1' })).arrayBuffer());
  expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
});

test('only editors and admins export: signed out 401, viewer and manager 403, admin 200', async () => {
  const signedOut = await fetch(`${portal}/api/export/picks?format=csv`);
  expect(signedOut.status).toBe(401);
  expect((await signedOut.json()).error.code).toBe('UNAUTHENTICATED');
  for (const role of ['viewer', 'manager'] as const) {
    const res = await exportOf('picks', { format: 'csv' }, await sessionCookie(portal, role));
    expect(res.status).toBe(403);
    expect(res.headers.get('content-disposition')).toBeNull();
    expect((await res.json()).error.code).toBe('FORBIDDEN');
  }
  const admin = await exportOf('results', { format: 'json', sport: 'Cricket' }, await sessionCookie(portal, 'admin'));
  expect(admin.status).toBe(200);
  await admin.arrayBuffer();
});

test('invalid filters and formats get 400 with a clear message and no file', async () => {
  for (const [params, code, text] of [
    [{ format: 'csv', status: 'finished' }, 'INVALID_FILTERS', 'status must be one of'],
    [{ format: 'csv', from: 'yesterday' }, 'INVALID_FILTERS', 'from must be a date'],
    [{ format: 'xml' }, 'INVALID_FORMAT', 'format must be csv, json, jsonl or parquet'],
    [{}, 'INVALID_FORMAT', 'format must be csv, json, jsonl or parquet'],
  ] as const) {
    const res = await exportOf('picks', params);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-disposition')).toBeNull();
    const body = await res.json();
    expect(body.error.code).toBe(code);
    expect(body.error.message).toContain(text);
  }
});

test.describe('through a faulty upstream', () => {
  let cookie: string;
  test.beforeAll(async () => {
    cookie = await sessionCookie(faulty, 'editor');
  });
  test.afterEach(async () => {
    await fetch(`${proxy}/__faults`, { method: 'DELETE' });
  });
  const faults = (rules: unknown[]) => fetch(`${proxy}/__faults`, { method: 'POST', body: JSON.stringify(rules) });
  const upstreamPages = async () =>
    ((await (await fetch(`${proxy}/__requests`)).json()) as { path: string }[]).filter((r) => r.path.startsWith('/api/v1/picks')).length;

  for (const format of ['csv', 'json']) {
    test(`a failure mid-export (${format}) breaks the download instead of ending it like a complete file`, async () => {
      await faults([{ path: '^/api/v1/picks', from: 4, status: 500, body: '{"error":{"code":"BOOM","message":"x","requestId":"req_f"}}' }]);
      const res = await exportOf('picks', { format }, cookie, faulty);
      expect(res.status).toBe(200); // the first pages went well: the file had started
      const reader = res.body!.getReader();
      let received = 0;
      const outcome = await (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return 'ended';
          received += value.byteLength;
        }
      })().catch((error: Error) => `error: ${error.message}`);
      expect(outcome).toMatch(/^error/);
      expect(received).toBeGreaterThan(0);
    });
  }

  test('a refusal before the first byte is the portal’s JSON error, not a file', async () => {
    await faults([{ path: '^/api/v1/picks', status: 403, body: '{"error":{"code":"LICENCE","message":"x","requestId":"req_403"}}' }]);
    const res = await exportOf('picks', { format: 'csv' }, cookie, faulty);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 'LICENCE_UNAVAILABLE', requestId: 'req_403' } });
  });

  test('when the reader goes away, the walk stops: no further upstream requests', async () => {
    await faults([{ path: '^/api/v1/picks', delayMs: 250 }]);
    await fetch(`${proxy}/__requests`, { method: 'DELETE' });
    const total = Math.ceil((await walkSandbox(sandbox, E2E.sandboxKey, 'picks', {})).length / 200);
    const abort = new AbortController();
    const res = await exportOf('picks', { format: 'csv' }, cookie, faulty, abort.signal);
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    await new Promise((r) => setTimeout(r, 1_000));
    const afterAbort = await upstreamPages();
    await new Promise((r) => setTimeout(r, 1_500));
    const later = await upstreamPages();
    expect(later).toBe(afterAbort); // nothing more asked of the upstream
    expect(later).toBeLessThan(total / 2);
    expect(total).toBeGreaterThan(20);
  });

  test('an editor exports from the picks page, with progress, and gets the whole file', async ({ page }) => {
    await faults([{ path: '^/api/v1/picks', delayMs: 120 }]);
    await signIn(page, 'editor', '/licence', `http://localhost:${E2E.faultyPort}`); // no walk of its own
    await new RecordsPage(page, '/picks', `http://localhost:${E2E.faultyPort}`).visit('sport=Football');
    const expected = (await walkSandbox(sandbox, E2E.sandboxKey, 'picks', { sport: 'Football' })).map((p) => p.id);

    const download = page.waitForEvent('download');
    await openExport(page);
    await page.getByRole('button', { name: 'CSV', exact: true }).click();
    await expect(page.getByTestId('export-progress')).toBeVisible();
    await expect(page.getByTestId('export-progress')).not.toHaveText('0');
    const file = await (await download).path();
    await expect(page.getByTestId('export-count')).toHaveText(expected.length.toLocaleString('en-US'));
    const { readFile } = await import('node:fs/promises');
    const csv = Papa.parse<Record<string, string>>(await readFile(file, 'utf8'), { header: true, skipEmptyLines: true });
    expect(csv.data.map((r) => r.id)).toEqual(expected);
    expect((await download).suggestedFilename()).toMatch(/^picks-football-\d{8}T\d{6}Z\.csv$/);

    const jsonDownload = page.waitForEvent('download');
    await openExport(page);
    await page.getByRole('button', { name: 'JSON', exact: true }).click();
    const json = JSON.parse(await readFile(await (await jsonDownload).path(), 'utf8'));
    expect(json.data.map((p: { id: string }) => p.id)).toEqual(expected);
    await expect(page.getByTestId('export-count')).toHaveText(expected.length.toLocaleString('en-US'));

    // JSON Lines counts its records as it goes; Parquet, binary, says its size and where its count is.
    const linesDownload = page.waitForEvent('download');
    await openExport(page);
    await page.getByRole('button', { name: 'JSON Lines', exact: true }).click();
    const lines = (await readFile(await (await linesDownload).path(), 'utf8')).trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(expected);
    await expect(page.getByTestId('export-count')).toHaveText(expected.length.toLocaleString('en-US'));
    const parquetDownload = page.waitForEvent('download');
    await openExport(page);
    await page.getByRole('button', { name: 'Parquet', exact: true }).click();
    const parquet = await readFile(await (await parquetDownload).path());
    expect([parquet.subarray(0, 4).toString(), parquet.subarray(-4).toString()]).toEqual(['PAR1', 'PAR1']);
    expect((await parquetDownload).suggestedFilename()).toMatch(/^picks-football-\d{8}T\d{6}Z\.parquet$/);
    await expect(page.getByTestId('export-status')).toContainText('(its record count is in My exports)');
  });

  test('a cancelled export in the page saves nothing and says so', async ({ page }) => {
    await faults([{ path: '^/api/v1/picks', delayMs: 300 }]);
    await signIn(page, 'editor', '/licence', `http://localhost:${E2E.faultyPort}`); // no walk of its own
    await new RecordsPage(page, '/picks', `http://localhost:${E2E.faultyPort}`).visit('limit=50');
    let downloads = 0;
    page.on('download', () => (downloads += 1));
    await openExport(page);
    await page.getByRole('button', { name: 'CSV', exact: true }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByTestId('export-status')).toContainText('Export cancelled');
    expect(downloads).toBe(0);
  });

  test('a failed export in the page says it failed and saves nothing', async ({ page }) => {
    await signIn(page, 'editor', '/licence', `http://localhost:${E2E.faultyPort}`); // no walk of its own
    await new RecordsPage(page, '/picks', `http://localhost:${E2E.faultyPort}`).visit('limit=50');
    await faults([{ path: '^/api/v1/picks', from: 3, status: 503 }]);
    let downloads = 0;
    page.on('download', () => (downloads += 1));
    await openExport(page);
    await page.getByRole('button', { name: 'JSON', exact: true }).click();
    await expect(page.getByTestId('export-status')).toContainText('Export failed');
    await expect(page.getByTestId('export-status')).toContainText('No file was saved');
    expect(downloads).toBe(0);
  });
});

test('a viewer sees no export control', async ({ page }) => {
  await signIn(page, 'viewer', '/picks');
  await new RecordsPage(page, '/picks').visit();
  await expect(recordsTable(page)).toBeVisible();
  await expect(page.getByTestId('export-menu')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'CSV', exact: true })).toHaveCount(0);
});

test('an upstream refusal stays itself after pages have used the client first (no INTERNAL)', async ({ page }) => {
  // Pages and route handlers are bundled apart by Next; the error a handler meets must still be recognised.
  const origin = `http://localhost:${E2E.suspendedPort}`;
  await signIn(page, 'editor', '/picks', origin);
  const res = await page.request.get(`${origin}/api/export/picks?format=csv`);
  expect(res.status()).toBe(403);
  expect((await res.json()).error.code).toBe('LICENCE_UNAVAILABLE');
});
