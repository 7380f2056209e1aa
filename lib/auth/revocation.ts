import 'server-only';

/**
 * Sessions are JWTs, so deleting the cookie at sign-out would leave a copied token valid. Each session
 * carries an identity (`sid`) that survives next-auth re-encoding the token; signed-out identities are
 * kept here until the session could have expired anyway, and refused on every session read.
 * Process-wide (globalThis: Next bundles the auth route and the pages separately) and in memory.
 */

const holder = globalThis as typeof globalThis & { __portalRevokedSessions?: Map<string, number> };
const revoked = (holder.__portalRevokedSessions ??= new Map());

export function revokeSession(sid: unknown, untilMs: number): void {
  if (typeof sid !== 'string' || sid === '') return;
  const now = Date.now();
  for (const [id, until] of revoked) if (until <= now) revoked.delete(id);
  revoked.set(sid, untilMs);
}

export function isSessionRevoked(sid: string): boolean {
  return (revoked.get(sid) ?? 0) > Date.now();
}
