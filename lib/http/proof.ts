import 'server-only';
import { toAppError } from '../errors';
import { fromStore } from '../store';
import { publishedKeys } from '../proof/signer';

/** GET /api/proof/keys: a JWK Set (RFC 7517), retired keys with their retiredAt, cacheable for a minute. */
export async function keysResponse(): Promise<Response> {
  try {
    const keys = await fromStore((db) => publishedKeys(db));
    return Response.json(keys, { headers: { 'Content-Type': 'application/jwk-set+json', 'Cache-Control': 'public, max-age=60' } });
  } catch (error) {
    return toAppError(error).toResponse();
  }
}
