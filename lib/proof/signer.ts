import 'server-only';
import { CompactSign } from 'jose';
import { canonicalBytes } from './canonical';
import { getConfig } from '../config';
import { processState } from '../process-state';
import { listSigningKeys, registerSigningKey } from '../store/signing-keys';
import type { Store } from '../store/open';
import { loadSigningKey, type SigningKey } from './keys';

export { canonicalBytes };

/**
 * Signing, for every proof the portal makes: a compact JWS (RFC 7515, EdDSA, `kid` in its header) whose payload
 * is exactly the bytes of the JSON it proves. That JSON is canonical (RFC 8785), so a proof made from the
 * same facts is the same bytes whoever serialises them, and a recipient can check the payload against the JSON.
 */

/** This process's key, read once (the file named by PORTAL_SIGNING_KEY_FILE, or the data directory's own). */
export function signingKey(): Promise<SigningKey> {
  if (!processState.signingKey) {
    const loading = loadSigningKey(getConfig());
    processState.signingKey = loading;
    loading.catch(() => {
      if (processState.signingKey === loading) processState.signingKey = undefined;
    });
  }
  return processState.signingKey;
}

/** At start: the key is read and its public half published (a retired key stops the start, naming it). */
export async function startSigning(store: Store): Promise<SigningKey> {
  const key = await signingKey();
  await registerSigningKey(store.db, key.kid, key.publicJwk);
  return key;
}

/** A compact JWS over `payload`; `typ` says what it proves (e.g. picks-manifest+json). */
export async function signBytes(payload: Uint8Array, typ: string): Promise<string> {
  return signWith(await signingKey(), payload, typ);
}

/** The same with a key in hand (the command-line tools read theirs themselves). */
export function signWith(key: SigningKey, payload: Uint8Array, typ: string): Promise<string> {
  return new CompactSign(payload).setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ }).sign(key.privateKey);
}

/** A document as canonical JSON with its JWS. */
export async function signDocument(document: unknown, typ: string): Promise<{ json: Buffer; jws: string }> {
  const json = canonicalBytes(document);
  return { json, jws: await signBytes(json, typ) };
}

/** The JWK Set (RFC 7517) of every key the portal has signed with: retired ones too, with when they were retired. */
export async function publishedKeys(db: Store['db']): Promise<{ keys: Record<string, unknown>[] }> {
  const keys = await listSigningKeys(db);
  return {
    keys: keys.map((key) => ({ ...key.jwk, createdAt: key.createdAt, ...(key.retiredAt ? { retiredAt: key.retiredAt } : {}) })),
  };
}
