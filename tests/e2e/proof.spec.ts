import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { compactVerify, createRemoteJWKSet } from 'jose';
import { expect, signIn, test } from '../support/fixtures';
import { E2E } from '../support/ports';
import { sessionCookie } from '../support/session';
import { ExportsPage, ProofsPage } from '../support/pages';

/**
 * Signed manifests end to end: an export's manifest and JWS, checked by the standalone verifier (run with Node
 * alone, as a recipient would) and by jose against the JWK Set fetched over HTTP — neither imports the portal's
 * signing code; each kind of tampering fails the verifier, naming it; a record outside the licence is flagged.
 */

const run = promisify(execFile);
const main = `http://127.0.0.1:${E2E.port}`;
const faulty = `http://127.0.0.1:${E2E.faultyPort}`;
const proxy = `http://127.0.0.1:${E2E.faultProxyPort}`;
const VERIFIER = path.resolve('public/verify-picks-file.mjs');

type Entry = { seq: number; sha256: string | null; target: string | null };

/** Exports as `cookie`, finds the export's audit entry by its sha256, and saves file, manifest, JWS and keys in a folder. */
async function exportAndFetch(origin: string, role: 'editor', query: string) {
  const cookie = await sessionCookie(origin, role);
  // A portal shared with other specs may still be paused by a throttling test, or hold their walks: wait as a client would.
  let res = await fetch(`${origin}${query}`, { headers: { cookie } });
  for (let waited = 0; res.status === 429 && waited < 120_000;) {
    const seconds = Math.min(30, Number(res.headers.get('retry-after') ?? 2) || 2);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    waited += seconds * 1000;
    res = await fetch(`${origin}${query}`, { headers: { cookie } });
  }
  expect(res.status, `the export ${query}`).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const admin = await sessionCookie(origin, 'admin');
  let entry: Entry | undefined;
  await expect
    .poll(
      async () => {
        const trail = (await (await fetch(`${origin}/api/audit?format=json&outcome=complete`, { headers: { cookie: admin } })).json()) as {
          entries: Entry[];
        };
        entry = trail.entries.find((e) => e.sha256 === sha256);
        return entry !== undefined;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  const manifest = Buffer.from(await (await fetch(`${origin}/api/exports/${entry!.seq}/manifest`, { headers: { cookie } })).arrayBuffer());
  const jwsResponse = await fetch(`${origin}/api/exports/${entry!.seq}/manifest.jws`, { headers: { cookie } });
  expect(jwsResponse.headers.get('content-type')).toBe('application/jose');
  const jws = await jwsResponse.text();
  const keys = await fetch(`${origin}/api/proof/keys`); // public: no cookie
  expect(keys.status).toBe(200);
  const dir = await mkdtemp(path.join(tmpdir(), 'proof-e2e-'));
  const file = path.join(dir, entry!.target!);
  await writeFile(file, bytes);
  await writeFile(`${file}.manifest.json`, manifest);
  await writeFile(`${file}.manifest.jws`, jws);
  await writeFile(path.join(dir, 'keys.json'), await keys.text());
  return { dir, file, bytes, manifest, jws, seq: entry!.seq, keysFile: path.join(dir, 'keys.json') };
}

/** The verifier as a recipient runs it: `node verify-picks-file.mjs …`, from another folder. */
async function verify(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, [VERIFIER, ...args], { cwd: tmpdir() });
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: `${failed.stdout}${failed.stderr}` };
  }
}

test('an export’s signed manifest verifies with the published keys, and every kind of tampering is named', async () => {
  const got = await exportAndFetch(main, 'editor', '/api/export/picks?format=csv&sport=Football');
  const manifest = JSON.parse(got.manifest.toString('utf8'));
  const rows = got.bytes.toString('utf8').trim().split('\r\n').length - 1;
  expect(manifest).toMatchObject({
    manifestVersion: 2,
    file: path.basename(got.file),
    records: rows,
    bytes: got.bytes.length,
    filters: { sport: 'Football' },
    filtersResolved: expect.objectContaining({ sport: 'Football' }),
    requestedBy: { user: 'editor@demo.picks.test', role: 'editor' },
    audit: { seq: got.seq, hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
    recordIds: { count: rows, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    licenceAttestation: { licenceId: 'lic_full', result: 'inside', checks: { sports: { state: 'inside' } } },
  });
  expect(Date.parse(manifest.dataAsOf.firstPage)).toBeLessThanOrEqual(Date.parse(manifest.dataAsOf.lastPage));

  // jose, with the key set fetched over HTTP: the payload is exactly the manifest's bytes.
  const verified = await compactVerify(got.jws, createRemoteJWKSet(new URL(`${main}/api/proof/keys`)));
  expect(verified.protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'picks-manifest+json' });
  expect(Buffer.from(verified.payload).equals(got.manifest)).toBe(true);

  const good = await verify([got.file, '--keys', got.keysFile]);
  expect(good.code).toBe(0);
  expect(good.out).toContain(`ok   records: ${rows}`);
  expect(good.out).toContain('licence attestation: inside (licence lic_full)');
  expect(good.out).toContain('verified: every check holds');
  // The keys can be fetched by the verifier itself too.
  expect((await verify([got.file, '--keys', `${main}/api/proof/keys`])).code).toBe(0);

  // One byte of the file changed.
  const edited = Buffer.from(got.bytes);
  edited[edited.length - 5] = edited[edited.length - 5] === 0x31 ? 0x32 : 0x31;
  await writeFile(got.file, edited);
  let result = await verify([got.file, '--keys', got.keysFile]);
  expect(result.code).toBe(1);
  expect(result.out).toMatch(/FAIL sha256: the file's is [0-9a-f]{64}, the manifest says/);
  expect(result.out).toMatch(/NOT VERIFIED: sha256$/m);

  // A record removed.
  const lines = got.bytes.toString('utf8').split('\r\n');
  await writeFile(got.file, [...lines.slice(0, 2), ...lines.slice(3)].join('\r\n'));
  result = await verify([got.file, '--keys', got.keysFile]);
  expect(result.out).toMatch(/NOT VERIFIED: bytes, sha256, records, record ids/);
  await writeFile(got.file, got.bytes);

  // A manifest field changed (the file made to match it would still fail: the JWS signs the original).
  await writeFile(`${got.file}.manifest.json`, JSON.stringify({ ...manifest, records: rows + 1 }));
  result = await verify([got.file, '--keys', got.keysFile]);
  expect(result.out).toContain('FAIL manifest: ');
  expect(result.out).toContain('differs from what was signed');
  await writeFile(`${got.file}.manifest.json`, got.manifest);

  // The JWS's payload swapped for an edited manifest, keeping the signature.
  const [header, , signature] = got.jws.split('.');
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...manifest, records: rows + 1 })).toString('base64url')}.${signature}`;
  await writeFile(`${got.file}.manifest.jws`, forged);
  result = await verify([got.file, '--keys', got.keysFile, '--manifest', path.join(got.dir, 'none.json')].slice(0, 3));
  expect(result.out).toMatch(/FAIL signature: its signature does not match key/);

  // A key set without the portal's key.
  await writeFile(`${got.file}.manifest.jws`, got.jws);
  await writeFile(got.keysFile, JSON.stringify({ keys: [] }));
  result = await verify([got.file, '--keys', got.keysFile]);
  expect(result.out).toMatch(/FAIL signature: it was signed with key \S+, which is not among the keys given/);
});

test('JSON and JSON Lines exports verify too; the verifier is downloadable from the portal, the same file', async () => {
  const got = await exportAndFetch(main, 'editor', '/api/export/results?format=json&league=NBA');
  const good = await verify([got.file, '--keys', got.keysFile]);
  expect(good.code).toBe(0);
  // JSON Lines: the same records, one a line; the manifest counts them, and a line taken out is caught.
  const lines = await exportAndFetch(main, 'editor', '/api/export/results?format=jsonl&league=NBA');
  expect(lines.file).toMatch(/\.jsonl$/);
  const records = lines.bytes.toString('utf8').trimEnd().split('\n');
  expect(records.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(
    (JSON.parse(got.bytes.toString('utf8')) as { data: { id: string }[] }).data.map((r) => r.id),
  );
  const checked = await verify([lines.file, '--keys', lines.keysFile]);
  expect(checked.code, checked.out).toBe(0);
  expect(checked.out).toContain(`ok   records: ${records.length}`);
  await writeFile(lines.file, `${records.slice(1).join('\n')}\n`);
  const cut = await verify([lines.file, '--keys', lines.keysFile]);
  expect(cut.code).not.toBe(0);
  expect(cut.out).toMatch(/records: the file's is \d+, the manifest says \d+/);
  // What a recipient downloads: the verifier and its readers, served as they are in public/, run from a folder of their own.
  const kit = await mkdtemp(path.join(tmpdir(), 'verifier-'));
  for (const name of ['verify-picks-file.mjs', 'picks-file-readers.mjs']) {
    const served = Buffer.from(await (await fetch(`${main}/${name}`)).arrayBuffer());
    expect(served.equals(await readFile(path.resolve('public', name))), name).toBe(true);
    await writeFile(path.join(kit, name), served);
  }
  const downloaded = await run(process.execPath, [path.join(kit, 'verify-picks-file.mjs'), got.file, '--keys', got.keysFile], { cwd: kit });
  expect(downloaded.stdout).toContain(`ok   records: ${(JSON.parse(got.bytes.toString('utf8')) as { data: unknown[] }).data.length}`);
});

test('records outside the licence are delivered, flagged in the manifest and marked in “My exports”', async ({ page }) => {
  test.setTimeout(180_000);
  // /me narrowed to Football: every other sport the upstream still sends is outside the licence.
  const me = { partner: 'Partner', licence: { id: 'lic_narrow', status: 'active', sports: ['Football'], contentMode: 'full' } };
  await fetch(`${proxy}/__faults`, {
    method: 'POST',
    body: JSON.stringify([{ path: '^/api/v1/me', status: 200, body: JSON.stringify(me), headers: { 'content-type': 'application/json' } }]),
  });
  try {
    const got = await exportAndFetch(faulty, 'editor', '/api/export/picks?format=json&league=NBA');
    const sent = JSON.parse(got.bytes.toString('utf8')) as { data: { id: string; sport: string }[] };
    const outside = sent.data.filter((record) => record.sport !== 'Football');
    expect(outside.length).toBeGreaterThan(0);
    const manifest = JSON.parse(got.manifest.toString('utf8'));
    expect(manifest.licenceAttestation).toMatchObject({
      licenceId: 'lic_narrow',
      result: 'outside',
      scope: { sports: ['Football'] },
      checks: { sports: { state: 'outside', outside: outside.length }, leagues: { state: 'unknown' }, contentMode: { state: 'unknown' } },
      outside: { count: outside.length, firstIds: outside.slice(0, 10).map((record) => record.id) },
    });
    const result = await verify([got.file, '--keys', got.keysFile]);
    expect(result.code).toBe(0); // the file is what was delivered: verified, with the attestation saying what it found
    expect(result.out).toContain(`outside the licence: ${outside.length} records`);

    await signIn(page, 'editor', '/exports', faulty);
    await new ExportsPage(page, faulty).visit();
    const row = page.locator(`[data-testid="exports-table"] tbody tr[data-export="${got.seq}"]`);
    await expect(row.getByTestId('outside-licence')).toHaveText(`${outside.length} outside the licence`);
  } finally {
    await fetch(`${proxy}/__faults`, { method: 'DELETE' });
  }
});

test('an admin sees the keys and checkpoints, and checks a file and its signature on /admin/proofs', async ({ page }) => {
  const got = await exportAndFetch(main, 'editor', '/api/export/picks?format=csv&league=NBA');
  const kid = JSON.parse(Buffer.from(got.jws.split('.')[0]!, 'base64url').toString()).kid as string;
  await signIn(page, 'admin', '/admin/proofs');
  await new ProofsPage(page).visit();
  await expect(page.getByTestId('keys-table').locator(`tr[data-kid="${kid}"]`)).toContainText('signing now');
  await expect(page.getByTestId('sealed-summary')).toContainText(/sealed/);

  const form = page.getByRole('form', { name: 'Check a file' });
  await form.getByLabel('The file', { exact: true }).setInputFiles(got.file);
  await form.getByLabel('Its signature', { exact: true }).setInputFiles(`${got.file}.manifest.jws`);
  await form.getByRole('button', { name: 'Check' }).click();
  const result = page.getByTestId('check-result');
  await expect(result).toHaveAttribute('data-ok', 'yes');
  await expect(result.locator('[data-check="record ids"]')).toHaveAttribute('data-ok', 'yes');
  await expect(result).toContainText('licence attestation: inside');

  // The same file with one byte changed: named, not verified.
  const edited = Buffer.from(got.bytes);
  edited[edited.length - 3] = edited[edited.length - 3] === 0x31 ? 0x32 : 0x31;
  await form.getByLabel('The file', { exact: true }).setInputFiles({ name: path.basename(got.file), mimeType: 'text/csv', buffer: edited });
  await form.getByRole('button', { name: 'Check' }).click();
  await expect(result).toHaveAttribute('data-ok', 'no');
  await expect(result.locator('[data-check="sha256"]')).toHaveAttribute('data-ok', 'no');
  await expect(result).toContainText('Not verified: sha256');

  // A Parquet file: its signed size and sha256 vouch for every byte; what is not read here is said, not passed over.
  const parquet = await exportAndFetch(main, 'editor', '/api/export/picks?format=parquet&league=NBA');
  expect(parquet.file).toMatch(/\.parquet$/);
  await form.getByLabel('The file', { exact: true }).setInputFiles(parquet.file);
  await form.getByLabel('Its signature', { exact: true }).setInputFiles(`${parquet.file}.manifest.jws`);
  await form.getByRole('button', { name: 'Check' }).click();
  await expect(result).toHaveAttribute('data-ok', 'yes');
  await expect(result.locator('[data-check="sha256"]')).toHaveAttribute('data-ok', 'yes');
  await expect(result.getByTestId('check-notes')).toContainText(
    /^Not checked here: records: \d+ by the signed manifest; read them with a Parquet reader/,
  );

  // Nothing given: every missing field named at once.
  const empty = await page.request.post(`http://localhost:${E2E.port}/api/proof/check`, {
    multipart: { note: 'x' },
    headers: { origin: `http://localhost:${E2E.port}` },
  });
  expect(empty.status()).toBe(400);
  expect((await empty.json()).error.details).toEqual({
    file: expect.stringContaining('is required'),
    jws: expect.stringContaining('is required'),
  });
});

test('a 95 MB check streams to disk on a worker thread: liveness keeps answering, a second check waits its turn, odd names are harmless', async () => {
  test.setTimeout(180_000);
  const got = await exportAndFetch(main, 'editor', '/api/export/picks?format=csv&league=NBA');
  const admin = await sessionCookie(main, 'admin');
  const origin = `http://localhost:${E2E.port}`;
  const post = (file: Blob, name: string) => {
    const form = new FormData();
    form.set('file', file, name);
    form.set('jws', got.jws);
    return fetch(`${main}/api/proof/check`, { method: 'POST', body: form, headers: { cookie: admin, origin } });
  };
  // The export's header and records, repeated to 95 MB: a file the verifier must read whole.
  const rows = got.bytes.toString('utf8').split('\r\n');
  const body = `${rows.slice(1).join('\r\n')}\r\n`;
  const big = new Blob([`${rows[0]}\r\n`, body.repeat(Math.ceil((95 * 1024 * 1024) / body.length))]);

  const slowest = { ms: 0 };
  let polling = true;
  const liveness = (async () => {
    while (polling) {
      const started = performance.now();
      const res = await fetch(`${main}/api/health/live`);
      expect(res.status).toBe(200);
      slowest.ms = Math.max(slowest.ms, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const first = post(big, 'big.csv');
  let second: Response | null = null;
  for (let tries = 0; tries < 100 && !second; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const res = await post(new Blob([got.bytes]), '..');
    if (res.status === 429) second = res;
  }
  const checked = await first;
  polling = false;
  await liveness;
  expect(checked.status).toBe(200);
  const result = (await checked.json()) as { ok: boolean; checks: { name: string; ok: boolean }[] };
  expect(result.ok).toBe(false); // not the file the manifest signs
  expect(result.checks.find((c) => c.name === 'signature')?.ok).toBe(true);
  expect(result.checks.find((c) => c.name === 'sha256')?.ok).toBe(false);
  expect(second?.status, 'a second check while the first runs').toBe(429);
  expect(((await second!.json()) as { error: { code: string } }).error.code).toBe('CHECK_BUSY');
  expect(slowest.ms, 'the slowest liveness answer during the check').toBeLessThan(1000);
  // A file named ".." is checked like any other (it never names a place on disk).
  const dots = await post(new Blob([got.bytes]), '..');
  expect(dots.status).toBe(200);
  expect(((await dots.json()) as { ok: boolean }).ok).toBe(true);
});

test('the checkpoints download is for admins only, and verifies with the published keys', async () => {
  const admin = await sessionCookie(main, 'admin');
  const editor = await sessionCookie(main, 'editor');
  expect((await fetch(`${main}/api/audit/checkpoints`, { headers: { cookie: editor } })).status).toBe(403);
  const res = await fetch(`${main}/api/audit/checkpoints`, { headers: { cookie: admin } });
  expect(res.headers.get('content-type')).toBe('application/x-ndjson');
  const lines = (await res.text()).trim().split('\n').filter(Boolean);
  expect(lines.length).toBeGreaterThan(0); // sealed at start and at least every few minutes while entries come
  const jwks = createRemoteJWKSet(new URL(`${main}/api/proof/keys`));
  let previous: string | null = null;
  for (const line of lines) {
    const { jws, hash } = JSON.parse(line) as { jws: string; hash: string };
    const { payload, protectedHeader } = await compactVerify(jws, jwks);
    expect(protectedHeader.typ).toBe('picks-audit-checkpoint+json');
    const checkpoint = JSON.parse(Buffer.from(payload).toString());
    expect(checkpoint.previous).toBe(previous);
    expect(createHash('sha256').update(payload).digest('hex')).toBe(hash);
    previous = hash;
  }
});

test('an audit download and a change-feed file have signed manifests too, and verify (entries, not records)', async () => {
  const admin = await sessionCookie(main, 'admin');
  for (const [url, action] of [
    ['/api/audit?format=csv&action=sign-in', 'export.audit'],
    ['/api/changes?format=json', 'export.changes'],
  ] as const) {
    const bytes = Buffer.from(await (await fetch(`${main}${url}`, { headers: { cookie: admin } })).arrayBuffer());
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    let entry: Entry | undefined;
    await expect
      .poll(
        async () => {
          const trail = (await (await fetch(`${main}/api/audit?format=json&action=${action}`, { headers: { cookie: admin } })).json()) as {
            entries: Entry[];
          };
          entry = trail.entries.find((e) => e.sha256 === sha256);
          return entry !== undefined;
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    const dir = await mkdtemp(path.join(tmpdir(), 'proof-entries-'));
    const file = path.join(dir, entry!.target!);
    await writeFile(file, bytes);
    await writeFile(
      `${file}.manifest.jws`,
      await (await fetch(`${main}/api/exports/${entry!.seq}/manifest.jws`, { headers: { cookie: admin } })).text(),
    );
    await writeFile(path.join(dir, 'keys.json'), await (await fetch(`${main}/api/proof/keys`)).text());
    const result = await verify([file, '--keys', path.join(dir, 'keys.json')]);
    expect(result.out).toContain('note record ids: not stated by this manifest');
    expect(result.code).toBe(0);
  }
});
