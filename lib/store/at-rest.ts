import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { processSlot } from '../process-state';

/**
 * Values the store keeps sealed because they are credentials themselves: webhook URLs (a chat hook's path is
 * its key). AES-256-GCM under a key the process gives at start (`setAtRestKey`, from DELIVERY_SECRET_KEY),
 * bound to the row it belongs to, stored as `sealed:v1:<origin>:<iv>.<tag>.<body>`: the origin stays readable
 * for lists (which show only it), the rest opens only with the key. Without a key, values are kept as given
 * (and a start warns); a sealed value read without the key stays sealed, and its use fails saying why.
 */

const PREFIX = 'sealed:v1:';
const atRestKey = processSlot<Buffer | null>('atRestKey');

/** Gives the process the key sealed values are made and opened with (null: none). */
export function setAtRestKey(secret: string | null): void {
  atRestKey.set(secret ? createHash('sha256').update(`picks-portal/at-rest\0${secret}`).digest() : null);
}

export const isSealed = (value: string) => value.startsWith(PREFIX);

const originOf = (value: string) => {
  try {
    return new URL(value).origin;
  } catch {
    return '';
  }
};

/** The value sealed for its row (as given when the process has no key, or when it is sealed already). */
export function sealAtRest(value: string, binding: string): string {
  const key = atRestKey.get();
  if (!key || isSealed(value)) return value;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(binding, 'utf8'));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  const origin = originOf(value).replaceAll(':', '%3A');
  return `${PREFIX}${origin}:${[iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.')}`;
}

/** The value as it was given; a sealed one this process cannot open is returned sealed. */
export function openAtRest(value: string, binding: string): string {
  const key = atRestKey.get();
  if (!isSealed(value) || !key) return value;
  const [iv, tag, body] = value.slice(value.lastIndexOf(':') + 1).split('.');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv ?? '', 'base64url'));
    decipher.setAAD(Buffer.from(binding, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag ?? '', 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body ?? '', 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return value; // another key, or another row's: it stays sealed, and its use says so
  }
}

/** The readable part of a sealed value: its origin. */
export const sealedOrigin = (value: string) => decodeURIComponent(value.slice(PREFIX.length, value.lastIndexOf(':')));
