import 'server-only';
import { CompactSign } from 'jose';
import { canonicalBytes } from './canonical';
import { getConfig } from '../config';
import { processSlot, promiseSlot } from '../process-state';
import { getStore } from '../store';
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
  return promiseSlot<SigningKey>('signingKey').once(() => loadSigningKey(getConfig()));
}

/** At start: the key is read and its public half published (a retired key stops the start, naming it). */
export async function startSigning(store: Store): Promise<SigningKey> {
  const key = await signingKey();
  await registerSigningKey(store.db, key.kid, key.publicJwk);
  return key;
}

/**
 * A compact JWS over `payload`; `typ` says what it proves (e.g. picks-manifest+json). Signing inside a
 * transaction passes it as `db`: on the embedded database it holds the one connection, and the key's standing
 * is read through it (read through another, it would wait for the transaction that waits for it).
 */
export async function signBytes(payload: Uint8Array, typ: string, db?: Store['db']): Promise<string> {
  const key = await signingKey();
  await refuseRetiredKey(key.kid, db);
  return signWith(key, payload, typ);
}

const KEY_STANDING_MS = 5_000;
const standing = () =>
  processSlot<{ kid: string; at: number; problem: string | null }>('signingKeyStanding').once(() => ({ kid: '', at: 0, problem: null }));

/**
 * A signature made with a key after it was retired (another instance took over with a new one) or marked
 * compromised fails every check (docs/proofs.md), so this instance stops signing with it, saying why, within
 * KEY_STANDING_MS. While the store is away, the last answer stands.
 */
async function refuseRetiredKey(kid: string, db?: Store['db'], now = Date.now()): Promise<void> {
  const known = standing();
  if (known.kid !== kid || now - known.at > KEY_STANDING_MS) {
    try {
      const row = (await listSigningKeys(db ?? (await getStore()).db)).find((key) => key.kid === kid);
      known.problem = row?.compromisedAt
        ? `this instance's signing key ${kid} was marked compromised at ${row.compromisedAt}: give it a new key and restart it`
        : row?.retiredAt
          ? `this instance's signing key ${kid} was retired at ${row.retiredAt}, when a newer key took over: give it the current key and restart it`
          : null;
      Object.assign(known, { kid, at: now });
    } catch {
      // The store is away: the last answer stands (the key was current when it was last read).
    }
  }
  if (known.kid === kid && known.problem) throw new Error(`Not signed: ${known.problem}.`);
}

/**
 * The same with a key in hand (the command-line tools read theirs themselves). The protected header says when
 * it was signed (`signedAt`), covered by the signature: a verifier refuses a retired key's signature made at or
 * after its retirement. In the header, not the payload, so that a manifest's bytes stay what was kept (ADR 0014).
 */
export function signWith(key: SigningKey, payload: Uint8Array, typ: string, now = new Date()): Promise<string> {
  return new CompactSign(payload).setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ, signedAt: now.toISOString() }).sign(key.privateKey);
}

/** A document as canonical JSON with its JWS. */
export async function signDocument(document: unknown, typ: string): Promise<{ json: Buffer; jws: string }> {
  const json = canonicalBytes(document);
  return { json, jws: await signBytes(json, typ) };
}

/** The JWK Set (RFC 7517) of every key the portal has signed with: retired ones too, with when they were retired (or marked compromised). */
export async function publishedKeys(db: Store['db']): Promise<{ keys: Record<string, unknown>[] }> {
  const keys = await listSigningKeys(db);
  return {
    keys: keys.map((key) => ({
      ...key.jwk,
      createdAt: key.createdAt,
      ...(key.retiredAt ? { retiredAt: key.retiredAt } : {}),
      ...(key.compromisedAt ? { compromisedAt: key.compromisedAt } : {}),
    })),
  };
}
