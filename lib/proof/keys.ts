import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';

/**
 * The portal's Ed25519 signing key. The private key lives in a file only (PORTAL_SIGNING_KEY_FILE, PEM or
 * JWK; on the embedded database one made on first start in the data directory, owner-only): a database
 * writer must not be able to sign. Its `kid` is the RFC 7638 thumbprint of its public key. Plain node:crypto
 * and jose; no cryptography here beyond calling them.
 */

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  /** The public half as a JWK (RFC 7517) with kid, alg and use: what /api/proof/keys publishes. */
  publicJwk: PublicJwk;
}

export type PublicJwk = JWK & { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' };

export const EMBEDDED_KEY_FILE = 'signing-key.pem';

/** A signing key from the text of a PEM (PKCS #8) or JWK file; throws a plain message when it is not an Ed25519 private key. */
export async function parseSigningKey(text: string): Promise<SigningKey> {
  let privateKey: KeyObject;
  try {
    const trimmed = text.trim();
    privateKey = trimmed.startsWith('{')
      ? createPrivateKey({ key: JSON.parse(trimmed) as import('node:crypto').JsonWebKey, format: 'jwk' })
      : createPrivateKey(trimmed);
  } catch (error) {
    throw new Error(`is not a private key in PEM or JWK form (${(error as Error).message})`);
  }
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`holds an ${privateKey.asymmetricKeyType ?? 'unknown'} key; the portal signs with Ed25519`);
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' }) as { x: string };
  const kid = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x }, 'sha256');
  return { kid, privateKey, publicJwk: { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' } };
}

/** A new key's PEM text. */
export function newKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

/** Writes a new key to `file` (owner-only, never over an existing file) and returns it. */
export async function writeNewKey(file: string): Promise<SigningKey> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const pem = newKeyPem();
  await writeFile(file, pem, { mode: 0o600, flag: 'wx' });
  return parseSigningKey(pem);
}

/** Replaces the key in `file` by a new one: the old private key is gone (a key in the set is never reused). */
export async function replaceKey(file: string): Promise<SigningKey> {
  const next = `${file}.new`;
  const key = await writeNewKey(next);
  await rename(next, file);
  return key;
}

export interface KeySettings {
  PORTAL_SIGNING_KEY_FILE?: string;
  DATABASE_URL?: string;
  PORTAL_DATA_DIR: string;
}

/** Where this process's key is: the file named, or (embedded database only) the data directory's own. */
export function keyFileOf(settings: KeySettings): string {
  if (settings.PORTAL_SIGNING_KEY_FILE) return settings.PORTAL_SIGNING_KEY_FILE;
  if (settings.DATABASE_URL)
    throw new Error(
      'PORTAL_SIGNING_KEY_FILE is required with DATABASE_URL: every instance must sign with the key the operator gives it (make one with `npm run proof -- new-key --out <file>`).',
    );
  return path.join(settings.PORTAL_DATA_DIR, EMBEDDED_KEY_FILE);
}

/** Reads this process's key, making the embedded one on first start. Messages name the variable and the file. */
export async function loadSigningKey(settings: KeySettings): Promise<SigningKey> {
  const file = keyFileOf(settings);
  let text: string;
  try {
    text = await readFile(/*turbopackIgnore: true*/ file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || settings.PORTAL_SIGNING_KEY_FILE)
      throw new Error(`PORTAL_SIGNING_KEY_FILE (${file}) cannot be read: ${(error as Error).message}`);
    return writeNewKey(file);
  }
  // As ssh refuses a private key others can read: a key anyone on the machine could copy proves nothing.
  const mode = (await stat(/*turbopackIgnore: true*/ file)).mode & 0o777;
  if (process.platform !== 'win32' && (mode & 0o077) !== 0)
    throw new Error(
      `The signing key file ${file} can be read or written by others (mode ${mode.toString(8).padStart(4, '0')}): make it owner-only (chmod 600 ${file}) and keep only the portal's user as its owner.`,
    );
  try {
    return await parseSigningKey(text);
  } catch (error) {
    throw new Error(`The signing key file ${file} ${(error as Error).message}.`);
  }
}
