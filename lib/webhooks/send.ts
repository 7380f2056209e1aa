import 'server-only';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Agent, fetch as undiciFetch } from 'undici';
import { maskedWebhookUrl, pinnedLookup, pinTarget, type Resolver } from '../deliveries/targets';
import type { AttemptOutcome, AttemptTrigger, WebhookAttempt } from '../store/token-webhooks';
import { ANSWER_BODY_BYTES, type Exchange } from '../store/token-logs';
import type { PrivateTargets } from '../deliveries/targets';

/**
 * One message to a consumer webhook, signed as the Standard Webhooks specification says (its library signs:
 * `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`), POSTed once to the address
 * checked for this attempt (the deliveries' policy: public addresses only unless private targets are allowed; the
 * connection goes to exactly the address checked), within SEND_TIMEOUT_MS, no redirects followed. The body is
 * `{"type","timestamp","data"}`: for an event, `data` is the event exactly as the stream gives it (seq, prev, hash),
 * so a consumer saves it and checks it with the offline verifier like any other.
 */

export const SEND_TIMEOUT_MS = 15_000;

export interface Message {
  /** The `webhook-id`: one per event (the same at every attempt and resend: a receiver drops what it has seen). */
  id: string;
  type: string;
  seq: number | null;
  body: string;
}

/** An event of the stream (its JSON as built for the token's view) as a message. */
export const eventMessage = (event: { seq: number; type: string; detectedAt: string }, json: string): Message => ({
  id: `evt_${event.seq}`,
  type: event.type,
  seq: event.seq,
  body: `{"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.detectedAt)},"data":${json}}`,
});

/** What the endpoint missed because it fell behind what the portal keeps: re-read the current set, then go on. */
export const gapMessage = (asked: number, first: number, now: number): Message => ({
  id: `gap_${asked}_${first}`,
  type: 'gap',
  seq: null,
  body: JSON.stringify({
    type: 'gap',
    timestamp: new Date(now).toISOString(),
    data: {
      asked,
      first,
      message: `Events after ${asked} are no longer kept; the next event is ${first}. Read the current records (API v1 or a file), then go on.`,
    },
  }),
});

export const testMessage = (endpointId: string, by: string, now: number): Message => ({
  id: `test_${randomBytes(8).toString('hex')}`,
  type: 'webhook.test',
  seq: null,
  body: JSON.stringify({
    type: 'webhook.test',
    timestamp: new Date(now).toISOString(),
    data: {
      endpoint: endpointId,
      sentBy: by,
      message: 'A test event from the picks partner portal: the signature checks, nothing else to do.',
    },
  }),
});

export interface SendResult {
  outcome: Extract<AttemptOutcome, 'delivered' | 'failed'>;
  code: number | null;
  /** Why it failed, in plain words, never with the URL's path or query. */
  problem: string | null;
  durationMs: number;
  /** What was sent (its headers carry the signature, never the secret) and answered. */
  exchange: Exchange;
}

export interface SendContext {
  allowPrivate: PrivateTargets;
  resolver?: Resolver;
  timeoutMs?: number;
}

/** One signed POST; never throws: the outcome, the response code and the time it took. */
export async function sendMessage(url: string, secret: string, message: Message, context: SendContext): Promise<SendResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const target = new URL(url);
  const timestamp = new Date();
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': 'picks-partner-portal',
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(message.id, timestamp, message.body),
  };
  const sent: Exchange = { request: { headers, body: message.body, bytes: Buffer.byteLength(message.body) }, response: null };
  const pinned = await pinTarget(target.hostname, context.allowPrivate, context.resolver);
  if (!pinned.ok) return { outcome: 'failed', code: null, problem: pinned.problem, durationMs: took(), exchange: sent };
  const dispatcher = new Agent({ connect: { lookup: pinnedLookup(pinned) } });
  try {
    const res = await undiciFetch(url, {
      method: 'POST',
      redirect: 'manual',
      dispatcher,
      signal: AbortSignal.timeout(context.timeoutMs ?? SEND_TIMEOUT_MS),
      body: message.body,
      headers,
    });
    const exchange: Exchange = { ...sent, response: await answerOf(res) };
    if (res.status >= 200 && res.status < 300)
      return { outcome: 'delivered', code: res.status, problem: null, durationMs: took(), exchange };
    const redirect = res.status >= 300 && res.status < 400 ? ' (a redirect: not followed; give the final URL)' : '';
    return { outcome: 'failed', code: res.status, problem: `answered HTTP ${res.status}${redirect}`, durationMs: took(), exchange };
  } catch (error) {
    const cause = (error as Error).cause as Error | undefined;
    const why =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${Math.round((context.timeoutMs ?? SEND_TIMEOUT_MS) / 1000)} s`
        : (cause?.message ?? (error as Error).message);
    return {
      outcome: 'failed',
      code: null,
      problem: `could not be reached (${why.replaceAll(url, maskedWebhookUrl(url))})`,
      durationMs: took(),
      exchange: sent,
    };
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

/**
 * The receiver's answer as the log keeps it: its status, headers and the first ANSWER_BODY_BYTES of its body (read
 * no further: a receiver answering megabytes costs nothing more), within the send's own time bound.
 */
async function answerOf(res: Awaited<ReturnType<typeof undiciFetch>>): Promise<NonNullable<Exchange['response']>> {
  const chunks: Buffer[] = [];
  let read = 0;
  try {
    for await (const chunk of res.body ?? []) {
      chunks.push(Buffer.from(chunk as Uint8Array));
      read += (chunk as Uint8Array).byteLength;
      if (read >= ANSWER_BODY_BYTES) break;
    }
  } catch {
    // What came before the connection ended or the time ran out is kept.
  }
  await res.body?.cancel().catch(() => undefined);
  const declared = Number(res.headers.get('content-length'));
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    // Cut to ANSWER_BODY_BYTES where the attempt is kept (lib/store/token-logs.ts exchangeColumns), once.
    body: Buffer.concat(chunks).toString('utf8'),
    bytes: Number.isSafeInteger(declared) && declared >= read ? declared : read,
  };
}

/** A send as the endpoint's log keeps it. */
export const attemptOf = (
  webhookId: string,
  message: Message,
  trigger: AttemptTrigger,
  sent: SendResult,
  atMs: number,
): Omit<WebhookAttempt, 'id'> => ({ webhookId, messageId: message.id, seq: message.seq, type: message.type, trigger, ...sent, atMs });
