import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * The cursors the portal's API v1 hands to a token's consumer are sealed (AES-256-GCM, node:crypto): their
 * content — which part of the scope the walk is in and the upstream's own cursor — cannot be read, and they
 * are bound as GCM's additional data to the token, the endpoint, the filters and the token's scope as it
 * was. A cursor that was altered, belongs to another token, is used with other filters, or predates a change
 * of the token's scope does not open: the request is refused as INVALID_FILTERS, like the upstream's own.
 * The key is derived from the session secret every instance shares (AUTH_SECRET or NEXTAUTH_SECRET).
 */

export interface CursorState {
  /** Which upstream request of the scope's plan the walk is in (lib/api-v1/plan.ts). */
  segment: number;
  /** The upstream's cursor within it; null: that request's first page. */
  upstream: string | null;
}

export interface CursorBinding {
  tokenId: string;
  endpoint: 'picks' | 'results';
  /** The consumer's filters, without limit and cursor. */
  filters: Record<string, string>;
  /** The token's scope as JSON (a change of scope ends the walks begun before it). */
  scope: string;
}

const bindingOf = (binding: CursorBinding) =>
  Buffer.from(
    JSON.stringify([
      binding.tokenId,
      binding.endpoint,
      Object.entries(binding.filters)
        .filter(([, value]) => value !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      binding.scope,
    ]),
    'utf8',
  );

export function cursorKey(secret: string): Buffer {
  return createHash('sha256').update(`picks-portal/v1-cursors\0${secret}`).digest();
}

export function sealCursor(state: CursorState, binding: CursorBinding, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(bindingOf(binding));
  const body = Buffer.concat([cipher.update(JSON.stringify([state.segment, state.upstream]), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The state a cursor holds, or null when it does not open for this binding (altered, another token's, other filters). */
export function openCursor(cursor: string, binding: CursorBinding, key: Buffer): CursorState | null {
  if (cursor.length > 4_096 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length < 29) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
    decipher.setAAD(bindingOf(binding));
    decipher.setAuthTag(bytes.subarray(12, 28));
    const plain = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    const [segment, upstream] = JSON.parse(plain) as [unknown, unknown];
    if (!Number.isInteger(segment) || (segment as number) < 0) return null;
    if (upstream !== null && typeof upstream !== 'string') return null;
    return { segment: segment as number, upstream };
  } catch {
    return null;
  }
}
