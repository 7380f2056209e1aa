import { createHmac } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { Agent, fetch as undiciFetch } from 'undici';
import { deliveryFailed, type Finished } from './destinations';
import { pinnedLookup, type ResolvedAddress } from './targets';

/**
 * A webhook receives the whole file in one signed POST, retried with backoff (1 s, 4 s, 16 s) on network
 * faults, 429 and 5xx; every attempt connects to the address checked for this run (an undici Agent whose
 * lookup answers with it; TLS still verifies the URL's host name).
 *
 * The signature (X-Picks-Signature: v2=<hex>) is HMAC-SHA256 with the shared secret over
 *   `v2\n<timestamp>\n<delivery id>\n<file name>\n<X-Picks-Manifest value>\n` followed by the body,
 * so a receiver that checks it knows that the headers it acts on came with this body, at this time.
 */

export interface WebhookTarget {
  url: string;
  address: ResolvedAddress;
  secret: string;
  deliveryId: string;
}

export interface SignedParts {
  timestamp: string;
  deliveryId: string;
  file: string;
  manifest: string;
}

/** What the signature covers before the body (see above); alert webhooks sign the same way (lib/alerts/webhooks.ts). */
export const signedPrefix = (parts: SignedParts) => `v2\n${parts.timestamp}\n${parts.deliveryId}\n${parts.file}\n${parts.manifest}\n`;

/** The signature a receiver checks, hex (see above). */
export async function signatureOf(secret: string, parts: SignedParts, spool: string): Promise<string> {
  const hmac = createHmac('sha256', secret).update(signedPrefix(parts));
  for await (const chunk of createReadStream(spool)) hmac.update(chunk as Buffer);
  return hmac.digest('hex');
}

export async function toWebhook(target: WebhookTarget, done: Finished, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))) {
  const dispatcher = new Agent({ connect: { lookup: pinnedLookup(target.address) } });
  const manifest = done.signed.json.toString('base64url');
  let last = '';
  try {
    for (let attempt = 0; attempt < 4; attempt += 1) {
      if (attempt > 0) await sleep(1000 * 4 ** (attempt - 1));
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = await signatureOf(
        target.secret,
        { timestamp, deliveryId: target.deliveryId, file: done.file, manifest },
        done.spool,
      );
      try {
        const res = await undiciFetch(target.url, {
          method: 'POST',
          redirect: 'error',
          dispatcher,
          signal: AbortSignal.timeout(120_000),
          duplex: 'half',
          body: Readable.toWeb(createReadStream(done.spool)) as never,
          headers: {
            'Content-Type': done.contentType,
            'User-Agent': 'picks-partner-portal',
            'X-Picks-Delivery': target.deliveryId,
            'X-Picks-File': done.file,
            'X-Picks-Timestamp': timestamp,
            'X-Picks-Signature': `v2=${signature}`,
            'X-Picks-Manifest': manifest,
            // The manifest's JWS (its payload is exactly the bytes X-Picks-Manifest carries): checkable with the public keys alone.
            'X-Picks-Manifest-JWS': done.signed.jws,
          },
        });
        await res.body?.cancel().catch(() => undefined);
        if (res.ok) return;
        last = `HTTP ${res.status}`;
        if (res.status < 500 && res.status !== 429) break; // refused: asking again changes nothing
      } catch (error) {
        last = (error as Error).cause ? String(((error as Error).cause as Error).message) : (error as Error).message;
      }
    }
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
  throw deliveryFailed(`The webhook did not accept the file (${last}).`);
}
