import { execFile } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { calculateJwkThumbprint } from 'jose';

/**
 * For tests that check a delivered file as a recipient would: the JWK Set of the tests' signing key, made with
 * node:crypto and jose from the key file (not by the portal's signing module), and the standalone verifier run
 * with Node alone.
 */

export const TEST_KEY_FILE = path.resolve('tests/support/test-signing-key.pem');

export async function writeTestKeys(file: string): Promise<string> {
  const { x } = createPublicKey(readFileSync(TEST_KEY_FILE, 'utf8')).export({ format: 'jwk' }) as { x: string };
  const kid = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x });
  await writeFile(file, JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' }] }));
  return file;
}

export async function runVerifier(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [path.resolve('public/verify-picks-file.mjs'), ...args]);
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: `${failed.stdout}${failed.stderr}` };
  }
}
