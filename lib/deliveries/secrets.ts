import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SettingProblem } from '../errors';

/**
 * Delivery secrets (SFTP passwords and keys, webhook secrets) at rest: AES-256-GCM under a key derived
 * from DELIVERY_SECRET_KEY, stored as `v2.<iv>.<tag>.<ciphertext>` (base64url); never shown again after
 * saving, never logged. Each secret is bound to the destination it was entered for (SFTP host, port and
 * username; an S3 destination's endpoint, bucket and access key; a PostgreSQL server's host, port, database, user, sslmode, schema and table; a webhook's whole URL) as GCM's additional data: opened for any other destination, or with a
 * wrong key, it fails (the tag), so a moved delivery cannot carry its credential to a new server even if
 * a check above were missed. `v1` secrets (before binding) are bound to their destination once at start.
 */

const VERSION = 'v2';
const LEGACY = 'v1';

type Destination = Record<string, unknown> & { type: string };

/** What a secret is bound to; null for a destination that holds none (a folder). */
export function secretBinding(destination: Destination): string | null {
  if (destination.type === 'sftp')
    return `sftp\0${String(destination.host).toLowerCase()}\0${Number(destination.port ?? 22)}\0${String(destination.username)}`;
  if (destination.type === 's3') {
    const where = destination.endpoint ? new URL(String(destination.endpoint)).origin : `aws:${String(destination.region)}`;
    return `s3\0${where}\0${String(destination.bucket)}\0${String(destination.accessKeyId)}`;
  }
  // A PostgreSQL password opens only for its server, database and user, over the TLS mode and into the table it
  // was entered for: lowering sslmode (a server on the path reads it) or aiming at another table asks for it again.
  if (destination.type === 'postgres')
    return `postgres2\0${postgresServer(destination)}\0${String(destination.ssl)}\0${String(destination.schema)}\0${String(destination.table)}`;
  if (destination.type === 'webhook') {
    const url = new URL(String(destination.url));
    return `webhook\0${url.origin}${url.pathname}${url.search}`;
  }
  return null;
}

const postgresServer = (d: Destination) => `${String(d.host).toLowerCase()}\0${Number(d.port)}\0${String(d.database)}\0${String(d.user)}`;

/** What a PostgreSQL password was bound to before sslmode, schema and table were: re-sealed once at start (./start.ts). */
export const olderPostgresBinding = (destination: Destination) => `postgres\0${postgresServer(destination)}`;

/** The destination a binding names, in words, for the refusal that asks for the secret again. */
export function describeBinding(destination: Destination): string {
  if (destination.type === 'sftp')
    return `sftp://${String(destination.username)}@${String(destination.host)}:${Number(destination.port ?? 22)}`;
  if (destination.type === 's3')
    return `s3://${String(destination.bucket)} at ${destination.endpoint ? new URL(String(destination.endpoint)).origin : `AWS ${String(destination.region)}`} with key ${String(destination.accessKeyId)}`;
  if (destination.type === 'postgres')
    return `postgres://${String(destination.user)}@${String(destination.host)}:${Number(destination.port)}/${String(destination.database)}?sslmode=${String(destination.ssl)} (table ${String(destination.schema)}.${String(destination.table)})`;
  return destination.type === 'webhook' ? 'the webhook URL it was saved with' : destination.type;
}

function keyOf(secretKey: string): Buffer {
  return createHash('sha256').update(`picks-portal/delivery-secrets\0${secretKey}`).digest();
}

export function sealSecret(plain: string, secretKey: string, binding: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secretKey), iv);
  cipher.setAAD(Buffer.from(binding, 'utf8'));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

export class SecretUnreadable extends Error {
  constructor() {
    super(
      'a delivery secret could not be opened: it was saved for another destination, or DELIVERY_SECRET_KEY is not the key it was saved with',
    );
  }
}

/** Opens a secret for `binding`; `binding` null opens only a legacy (unbound) secret. */
export function openSecret(sealed: string, secretKey: string, binding: string | null): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (!iv || !tag || body === undefined) throw new SecretUnreadable();
  if (version === VERSION ? binding === null : version !== LEGACY || binding !== null) throw new SecretUnreadable();
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secretKey), Buffer.from(iv, 'base64url'));
    if (binding !== null) decipher.setAAD(Buffer.from(binding, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnreadable();
  }
}

export const isLegacySecret = (sealed: string) => sealed.startsWith(`${LEGACY}.`);

/** Said apart from the fields whenever a secret is given and the server has no key to seal it with. */
export const SECRET_KEY_UNSET: SettingProblem = {
  setting: 'DELIVERY_SECRET_KEY',
  problem:
    'is not set, so secrets cannot be stored: passwords, keys and signing secrets are refused until it is (the embedded store makes its own; with DATABASE_URL it must be set)',
  doc: 'docs/configuration.md',
};
