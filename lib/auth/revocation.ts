import 'server-only';

/**
 * Sessions are JWTs, so deleting the cookie at sign-out would leave a copied token valid until it
 * expires. Signed-out token ids are kept here until their expiry and refused on every session read.
 * Process-wide (globalThis: Next bundles the auth route and the pages separately) and in memory: with
 * several portal processes, put this behind a shared store.
 */

const holder = globalThis as typeof globalThis & { __portalRevoked?: Map<string, number> };
const revoked = (holder.__portalRevoked ??= new Map());

export function revokeToken(jti: unknown, expiresAtSeconds: unknown): void {
  if (typeof jti !== 'string') return;
  const now = Date.now();
  for (const [id, until] of revoked) if (until <= now) revoked.delete(id);
  revoked.set(jti, typeof expiresAtSeconds === 'number' ? expiresAtSeconds * 1000 : now + 24 * 3600_000);
}

export function isRevoked(jti: unknown): boolean {
  return typeof jti === 'string' && (revoked.get(jti) ?? 0) > Date.now();
}
