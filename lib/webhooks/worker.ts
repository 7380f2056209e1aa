import 'server-only';
import type { Kysely } from 'kysely';
import { mayActIn } from '../auth/principal';
import { SecretUnreadable } from '../deliveries/secrets';
import type { Resolver } from '../deliveries/targets';
import { isSealed } from '../store/at-rest';
import { hashAtOrBefore, readEventsAfter, resumePoint } from '../events/read';
import { queueAlerts } from '../store/alerts';
import type { Database } from '../store/schema';
import { getToken, type ApiToken } from '../store/tokens';
import { logAttempt, saveWebhookState, type TokenWebhook, type WebhookState } from '../store/token-webhooks';
import { tokenPrincipal } from '../tokens/access';
import { DAY_MS } from '../time';
import { openEndpointSecret } from './input';
import { awaitingOwner } from './confirm';
import { tokenQuota, type QuotaGate } from './quota';
import { attemptOf, eventMessage, gapMessage, sendMessage, type Message, type SendResult } from './send';
import type { PrivateTargets } from '../deliveries/targets';

/**
 * Sending one endpoint what its token's stream holds after the endpoint's cursor, in order: each event it wants
 * is sent until accepted (2xx), the next only after it. A refused event is tried again with backoff (5 s, 5 min,
 * 30 min, 2 h, 5 h, then every 10 h) for up to a day from its first failure, then given up (logged, and the
 * endpoint goes on with the next); an endpoint whose every attempt failed for 3 days is disabled and its token's
 * owner alerted. It acts for the token (the one rule for who may act): a revoked, expired or suspended token, or one
 * whose scope no longer reads changes, sends nothing. Events outside the kinds it wants are passed over.
 */

type Db = Kysely<Database>;

export const BACKOFF_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000] as const;
export const GIVE_UP_MS = DAY_MS;
export const DISABLE_AFTER_MS = 3 * DAY_MS;
/** A token that may not send now is looked at again after this. */
const PAUSED_MS = 60_000;
const READ = 50;

export interface SenderContext {
  secretKey: string | null;
  allowPrivate: PrivateTargets;
  retentionDays: number;
  resolver?: Resolver;
  timeoutMs?: number;
  now?: () => number;
  /** Ends the pass early (the instance stopping, the pass's time used up). */
  signal?: AbortSignal;
  /** The token's daily quota and use (default: the token's own, ./quota.ts). */
  quota?: QuotaGate;
}

export const backoffAfter = (attempts: number) => BACKOFF_MS[Math.min(attempts, BACKOFF_MS.length) - 1] ?? BACKOFF_MS[0];

/** Why this token's endpoints send nothing now (null: they may send). */
export async function tokenPause(db: Db, token: ApiToken | null, now: number): Promise<string | null> {
  if (!token || token.revokedMs !== null) return 'its token was revoked';
  if (token.expiresMs <= now) return 'its token expired';
  if (!token.scope.content.includes('changes')) return 'its token does not read changes (events)';
  const standing = await mayActIn(db, tokenPrincipal(token), 'tokens');
  return standing.ok ? null : `its token is suspended: ${standing.reason}`;
}

export interface PassResult {
  delivered: number;
  failed: number;
  /** Why it sent nothing (a paused token); null otherwise. */
  paused: string | null;
}

/** One pass for one endpoint the caller has claimed. */
export async function sendPending(db: Db, hook: TokenWebhook, context: SenderContext): Promise<PassResult> {
  const clock = context.now ?? Date.now;
  const result: PassResult = { delivered: 0, failed: 0, paused: null };
  const token = await getToken(db, hook.tokenId);
  // A webhook its token's owner has not confirmed (the token changed hands, or its maker left) waits like a paused token.
  const paused = (await tokenPause(db, token, clock())) ?? (await awaitingOwner(db, hook, token!));
  let state: WebhookState = { ...hook };
  const save = (next: WebhookState) => saveWebhookState(db, hook.id, (state = next), hook.updatedMs);
  const secret = paused || !context.secretKey ? null : openOrNull(hook, context.secretKey);
  if (secret === null) {
    // Nothing can be sent until what stops it changes: looked at again in a minute, and said on the page.
    result.paused =
      paused ??
      (!context.secretKey
        ? 'DELIVERY_SECRET_KEY is not set on this instance: the secret cannot be opened'
        : 'its URL or secret was saved under another DELIVERY_SECRET_KEY than this instance’s: enter the URL and secret again');
    await save({ ...state, nextMs: clock() + PAUSED_MS, pausedReason: paused ? state.pausedReason : result.paused });
    return result;
  }
  const scope = token!.scope;

  /** Sends one message; false when the pass must stop (refused, or the settings changed meanwhile). */
  const quota = context.quota ?? tokenQuota;
  const attempt = async (message: Message, passed: number): Promise<boolean> => {
    // An event is one record of the token's quota (a gap is none): over it, the webhook waits for midnight UTC.
    const taken = message.seq === null ? null : await quota.take(token!, clock());
    if (taken && !taken.ok) {
      result.paused = taken.why;
      await save({ ...state, nextMs: clock() + taken.waitMs, pausedReason: taken.why });
      return false;
    }
    const sent: SendResult = await sendMessage(hook.url, secret, message, context);
    const now = clock();
    await taken?.settle(sent.outcome === 'delivered');
    if (sent.outcome === 'delivered') {
      if (taken) quota.count(token!, Buffer.byteLength(message.body), new URL(hook.url).origin, now);
      await logAttempt(db, attemptOf(hook.id, message, 'delivery', sent, now));
      result.delivered += 1;
      return save({ ...state, cursor: passed, attempts: 0, headFailedMs: null, failingSinceMs: null, nextMs: now, pausedReason: null });
    }
    result.failed += 1;
    const attempts = state.attempts + 1;
    const headFailedMs = state.headFailedMs ?? now;
    const failingSinceMs = state.failingSinceMs ?? now;
    const givenUp = now - headFailedMs >= GIVE_UP_MS;
    await logAttempt(db, {
      ...attemptOf(hook.id, message, 'delivery', sent, now),
      outcome: givenUp ? 'gave up' : 'failed',
      problem: givenUp ? `${sent.problem}; refused for a day, given up: resend it from this page` : sent.problem,
    });
    const disabled = now - failingSinceMs >= DISABLE_AFTER_MS;
    await save({
      cursor: givenUp ? passed : state.cursor,
      attempts: givenUp ? 0 : attempts,
      headFailedMs: givenUp ? null : headFailedMs,
      failingSinceMs,
      nextMs: givenUp ? now : now + backoffAfter(attempts),
      pausedReason: null,
      disabledMs: disabled ? now : null,
      disabledReason: disabled
        ? `every attempt failed for 3 days (since ${new Date(failingSinceMs).toISOString()}); last: ${sent.problem}`
        : null,
    });
    if (disabled) await alertOwner(db, token!, hook, sent.problem ?? 'refused', now);
    return false;
  };

  const point = await resumePoint(db, state.cursor, context.retentionDays, false, clock());
  if (point.gap && !(await attempt(gapMessage(point.gap.asked, point.gap.first, clock()), point.after))) return result;
  let prev = await hashAtOrBefore(db, scope, state.cursor);
  for (;;) {
    if (context.signal?.aborted) return result;
    const read = await readEventsAfter(db, scope, state.cursor, READ, prev, { heldUpTo: point.last });
    for (const [i, event] of read.events.entries()) {
      if (context.signal?.aborted) return result;
      if (hook.kinds.includes(event.type)) {
        if (!(await attempt(eventMessage(event, read.json[i]!), event.seq))) return result;
      } else if (!(await save({ ...state, cursor: event.seq }))) return result;
      prev = event.hash;
    }
    if (read.scanned > state.cursor && !(await save({ ...state, cursor: read.scanned }))) return result;
    if (read.events.length < READ) return result;
  }
}

/** The endpoint's secret, or null when this instance cannot open it or its URL (another key, or moved in the store). */
function openOrNull(hook: TokenWebhook, secretKey: string): string | null {
  if (isSealed(hook.url)) return null;
  try {
    return openEndpointSecret(hook, secretKey);
  } catch (error) {
    if (error instanceof SecretUnreadable) return null;
    throw error;
  }
}

async function alertOwner(db: Db, token: ApiToken, hook: TokenWebhook, problem: string, now: number): Promise<void> {
  await queueAlerts(db, [
    {
      kind: 'token.webhook-disabled',
      sport: `token ${token.name} (${token.id})`,
      state: 'disabled',
      side: null,
      reason: `Its webhook ${new URL(hook.url).origin}/… (${hook.id}) was disabled after failing for 3 days (last: ${problem}); fix the receiver, then enable it on the token's page: it resumes after the last event it took`,
      detail: null,
      createdMs: now,
      dueMs: now,
    },
  ]);
}
