import { execFile, spawn } from 'node:child_process';
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { copyFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, STAFF, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { startInstance, type Instance } from '../support/instances';
import { startSandboxProcess } from '../support/sandbox-process';
import { sessionCookie } from '../support/session';
import { writeUsersFile } from '../support/users-file';

/**
 * Key rotation as an operator does it (docs/proofs.md#keys): a portal signs with the key it made in its data
 * directory; `npm run proof -- new-key` replaces it; after a restart the new key signs, the old one is published
 * as retired, and the proof it made before still verifies with the published set. A portal given the retired key
 * refuses to start, naming it.
 */

const SANDBOX_PORT = 4237;
const PORT = 3235;
const run = promisify(execFile);
let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
let portal: Instance | undefined;
let dataDir = '';
let env: Record<string, string> = {};
const origin = `http://127.0.0.1:${PORT}`;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  sandbox = await startSandboxProcess(SANDBOX_PORT);
  dataDir = await mkdtemp(path.join(tmpdir(), 'proof-rotation-'));
  const usersFile = path.join(dataDir, 'users.json');
  await writeUsersFile(
    usersFile,
    (['admin', 'editor'] as const).map((role) => ({ ...STAFF[role], role })),
  );
  env = {
    ...upstreamEnv(sandbox.url, E2E.sandboxKey),
    PORTAL_DATA_DIR: dataDir,
    PORTAL_USERS_FILE: usersFile,
    DATABASE_URL: '',
    AUTH_SECRET: 'proof-rotation-secret-0123456789-abcdef',
    CHANGES_POLL_SECONDS: '0',
  };
  portal = await startInstance(PORT, env);
});

test.afterAll(async () => {
  await portal?.stop();
  await sandbox?.stop();
});

/** An export's file, manifest and JWS saved in a folder of their own; the JWS's kid. */
async function exportWithProof(label: string) {
  const editor = await sessionCookie(origin, 'editor');
  const admin = await sessionCookie(origin, 'admin');
  const bytes = Buffer.from(
    await (await fetch(`${origin}/api/export/picks?format=csv&sport=Football`, { headers: { cookie: editor } })).arrayBuffer(),
  );
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  let seq = 0;
  await expect
    .poll(async () => {
      const trail = (await (await fetch(`${origin}/api/audit?format=json&action=export.picks`, { headers: { cookie: admin } })).json()) as {
        entries: { seq: number; sha256: string }[];
      };
      seq = trail.entries.find((e) => e.sha256 === sha256)?.seq ?? 0;
      return seq;
    })
    .toBeGreaterThan(0);
  const dir = await mkdtemp(path.join(tmpdir(), `proof-${label}-`));
  const file = path.join(dir, `picks-${label}.csv`);
  await writeFile(file, bytes);
  await writeFile(
    `${file}.manifest.json`,
    Buffer.from(await (await fetch(`${origin}/api/exports/${seq}/manifest`, { headers: { cookie: editor } })).arrayBuffer()),
  );
  const jws = await (await fetch(`${origin}/api/exports/${seq}/manifest.jws`, { headers: { cookie: editor } })).text();
  await writeFile(`${file}.manifest.jws`, jws);
  return { file, kid: JSON.parse(Buffer.from(jws.split('.')[0]!, 'base64url').toString()).kid as string };
}

/** A compact JWS made by hand with a private key (what a holder of a copied key can do), signed now. */
function signedWith(pem: string, kid: string, payload: Buffer): string {
  const header = Buffer.from(
    JSON.stringify({ alg: 'EdDSA', kid, typ: 'picks-manifest+json', signedAt: new Date().toISOString() }),
  ).toString('base64url');
  const input = `${header}.${payload.toString('base64url')}`;
  return `${input}.${sign(null, Buffer.from(input), createPrivateKey(pem)).toString('base64url')}`;
}

const verify = (file: string) =>
  run(process.execPath, ['public/verify-picks-file.mjs', file, '--keys', `${origin}/api/proof/keys`]).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
  );

test('a rotated key signs from the next start; the retired one stays published and its proofs still verify', async () => {
  test.setTimeout(240_000);
  const before = await exportWithProof('before');
  expect((await verify(before.file)).code).toBe(0);
  const oldKey = path.join(dataDir, 'old-signing-key.pem');
  await copyFile(path.join(dataDir, 'signing-key.pem'), oldKey); // what an attacker, or a careless restore, might bring back

  await portal!.stop();
  const rotated = await run('npm', ['run', '-s', 'proof', '--', 'new-key'], { env: { ...process.env, ...env } });
  expect(rotated.stdout).toMatch(/^new signing key \S+ in .*signing-key\.pem \(owner-only\); it signs from the next start/);
  portal = await startInstance(PORT, env);

  const set = (await (await fetch(`${origin}/api/proof/keys`)).json()) as { keys: { kid: string; retiredAt?: string }[] };
  expect(set.keys).toHaveLength(2);
  expect(set.keys.find((k) => k.kid === before.kid)?.retiredAt).toEqual(expect.any(String));
  const after = await exportWithProof('after');
  expect(after.kid).not.toBe(before.kid);
  expect(set.keys.find((k) => k.kid === after.kid)?.retiredAt).toBeUndefined();
  const old = await verify(before.file);
  expect(old.code).toBe(0);
  expect(old.out).toMatch(new RegExp(`ok   signature: EdDSA, key ${before.kid}, signed \\S+ \\(retired \\S+; it signed before then\\)`));
  expect((await verify(after.file)).code).toBe(0);

  // With a copy of the retired key, a manifest signed after its retirement fails the recipients' verifier and the portal's check.
  const forged = `${before.file}.forged`;
  await copyFile(before.file, forged);
  const manifest = await readFile(`${before.file}.manifest.json`);
  await writeFile(`${forged}.manifest.json`, manifest);
  await writeFile(`${forged}.manifest.jws`, signedWith(await readFile(oldKey, 'utf8'), before.kid, manifest));
  const refused = await verify(forged);
  expect(refused.code).toBe(1);
  expect(refused.out).toMatch(new RegExp(`FAIL signature: it was signed at \\S+, at or after key ${before.kid} was retired`));
  expect(refused.out).not.toContain('signed before then');
  const admin = await sessionCookie(origin, 'admin');
  const check = async (file: string) => {
    const form = new FormData();
    form.set('file', new Blob([await readFile(file)]), path.basename(file));
    form.set('jws', await readFile(`${file}.manifest.jws`, 'utf8'));
    const res = await fetch(`${origin}/api/proof/check`, { method: 'POST', body: form, headers: { cookie: admin, origin } });
    return (await res.json()) as { ok: boolean; checks: { name: string; ok: boolean; detail: string }[] };
  };
  expect(await check(before.file)).toMatchObject({ ok: true });
  const portalSays = await check(forged);
  expect(portalSays.ok).toBe(false);
  expect(portalSays.checks.find((c) => c.name === 'signature')?.detail).toMatch(/at or after key .* was retired/);

  // Marked compromised (the operator learns the copy is out): nothing the key signed verifies any more, even what it signed in time.
  const marked = await run('npm', ['run', '-s', 'proof', '--', 'compromised', before.kid], { env: { ...process.env, ...env } });
  expect(marked.stdout).toContain(`signing key ${before.kid} marked compromised`);
  await expect.poll(async () => (await verify(before.file)).out, { timeout: 70_000 }).toContain(`key ${before.kid} was marked compromised`);
  expect((await check(before.file)).ok).toBe(false);

  // The old key is never used again: a portal given it stops at start, naming it and why.
  const child = spawn('npm', ['start'], {
    env: {
      ...process.env,
      ...env,
      PORT: String(PORT + 100),
      NEXTAUTH_URL: `http://localhost:${PORT + 100}`,
      PORTAL_SIGNING_KEY_FILE: oldKey,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  child.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).not.toBe(0);
  expect(said).toContain(`The signing key ${before.kid} was marked compromised at`); // retired, then marked compromised above
});
