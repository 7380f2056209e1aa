import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The key secrets are sealed with (delivery passwords, webhook secrets and URLs: lib/deliveries/secrets.ts,
 * lib/store/at-rest.ts) when DELIVERY_SECRET_KEY is not given: on the embedded database the portal makes its own on
 * first start, owner-only in the data directory, as it makes its signing key. With DATABASE_URL every instance must
 * seal with the same key, so only the variable gives it there.
 */

export const EMBEDDED_SECRET_KEY_FILE = 'delivery-secret.key';

export interface SecretKeySource {
  /** Where the key came from: the variable, the data directory's file, or nowhere (secrets cannot be stored). */
  source: 'variable' | 'file' | 'none';
  file: string | null;
  /** The file was made by this process (said once at start). */
  made: boolean;
}

/** The data directory's key: read, or made (32 random bytes) when there is none. A message names the file. */
export function embeddedSecretKey(dataDir: string): { key: string; file: string; made: boolean } {
  const file = path.resolve(dataDir, EMBEDDED_SECRET_KEY_FILE);
  const read = () => {
    const mode = statSync(file).mode & 0o777;
    // As ssh refuses a private key others can read: a key anyone on the machine could copy protects nothing.
    if (process.platform !== 'win32' && (mode & 0o077) !== 0)
      throw new Error(
        `The secret-sealing key file ${file} can be read or written by others (mode ${mode.toString(8).padStart(4, '0')}): make it owner-only (chmod 600 ${file}).`,
      );
    const key = readFileSync(file, 'utf8').trim();
    if (key.length < 32) throw new Error(`The secret-sealing key file ${file} holds no key of 32 characters or more.`);
    return key;
  };
  try {
    return { key: read(), file, made: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process of this portal made it first: theirs is the key.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { key: read(), file, made: false };
    throw error;
  }
  return { key, file, made: true };
}
