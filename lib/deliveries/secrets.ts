import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Delivery secrets (SFTP passwords and keys, webhook secrets) at rest: AES-256-GCM under a key derived
 * from DELIVERY_SECRET_KEY. Stored as `v1.<iv>.<tag>.<ciphertext>` (base64url); never shown again after
 * saving, never logged. A wrong or changed key fails to open them (GCM's tag), said without the value.
 */

const VERSION = 'v1';

function keyOf(secretKey: string): Buffer {
  return createHash('sha256').update(`picks-portal/delivery-secrets\0${secretKey}`).digest();
}

export function sealSecret(plain: string, secretKey: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secretKey), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

export class SecretUnreadable extends Error {
  constructor() {
    super('a delivery secret could not be opened: DELIVERY_SECRET_KEY is not the key it was saved with');
  }
}

export function openSecret(sealed: string, secretKey: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || body === undefined) throw new SecretUnreadable();
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secretKey), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnreadable();
  }
}
