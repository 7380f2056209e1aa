import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { openAtRest, sealAtRest } from './at-rest';
import type { Database } from './schema';
import type { TokenWebhookAttemptsTable, TokenWebhooksTable } from './schema-tokens';
import { exchangeColumns, type Exchange } from './token-logs';
import type { ATTEMPT_OUTCOMES, ATTEMPT_TRIGGERS } from '../vocabulary/token-webhook';

/**
 * Consumer webhooks (lib/webhooks/): each endpoint's settings, its place in its token's stream and its state of
 * sending, and the log of its attempts. One instance sends to an endpoint at a time (`claimWebhook`), so its
 * events go out in order whatever the number of instances.
 */

type Db = Kysely<Database>;

export interface TokenWebhook {
  id: string;
  tokenId: string;
  url: string;
  kinds: string[];
  /** Sealed, bound to this endpoint and its URL. */
  secret: string;
  cursor: number;
  attempts: number;
  headFailedMs: number | null;
  failingSinceMs: number | null;
  nextMs: number;
  pausedReason: string | null;
  disabledMs: number | null;
  disabledReason: string | null;
  createdBy: string;
  createdMs: number;
  /** Who last confirmed it, and when (its maker at making, until someone else confirms it). */
  confirmedBy: string;
  confirmedMs: number;
  updatedMs: number;
}

/** What a webhook's URL is sealed for: this endpoint and no other. */
const urlBinding = (id: string) => `token-webhook\0${id}`;

const toWebhook = (row: Selectable<TokenWebhooksTable>): TokenWebhook => ({
  id: row.id,
  tokenId: row.token_id,
  url: openAtRest(row.url, urlBinding(row.id)),
  kinds: JSON.parse(row.kinds) as string[],
  secret: row.secret,
  cursor: Number(row.cursor),
  attempts: Number(row.attempts),
  headFailedMs: row.head_failed_ms === null ? null : Number(row.head_failed_ms),
  failingSinceMs: row.failing_since_ms === null ? null : Number(row.failing_since_ms),
  nextMs: Number(row.next_ms),
  pausedReason: row.paused_reason,
  disabledMs: row.disabled_ms === null ? null : Number(row.disabled_ms),
  disabledReason: row.disabled_reason,
  createdBy: row.created_by,
  createdMs: Number(row.created_ms),
  confirmedBy: row.confirmed_by ?? row.created_by,
  confirmedMs: Number(row.confirmed_ms ?? row.created_ms),
  updatedMs: Number(row.updated_ms),
});

const toRow = (hook: TokenWebhook) => ({
  token_id: hook.tokenId,
  url: sealAtRest(hook.url, urlBinding(hook.id)),
  kinds: JSON.stringify(hook.kinds),
  secret: hook.secret,
  cursor: hook.cursor,
  attempts: hook.attempts,
  head_failed_ms: hook.headFailedMs,
  failing_since_ms: hook.failingSinceMs,
  next_ms: hook.nextMs,
  paused_reason: hook.pausedReason,
  disabled_ms: hook.disabledMs,
  disabled_reason: hook.disabledReason,
  confirmed_by: hook.confirmedBy,
  confirmed_ms: hook.confirmedMs,
  updated_ms: hook.updatedMs,
});

export async function insertTokenWebhook(db: Db, hook: TokenWebhook): Promise<void> {
  await db
    .insertInto('token_webhooks')
    .values({ id: hook.id, ...toRow(hook), created_by: hook.createdBy, created_ms: hook.createdMs })
    .execute();
}

/**
 * Saves a person's change to the endpoint (`updatedMs` new, so the sender stops at its next step): its place in the
 * stream only when `moveCursor` (a resend from an earlier event), never one the sender moved meanwhile otherwise.
 */
export async function saveTokenWebhook(db: Db, hook: TokenWebhook, moveCursor = false): Promise<void> {
  const { cursor, ...rest } = toRow(hook);
  await db
    .updateTable('token_webhooks')
    .set(moveCursor ? { ...rest, cursor } : rest)
    .where('id', '=', hook.id)
    .execute();
}

export type WebhookState = Pick<
  TokenWebhook,
  'cursor' | 'attempts' | 'headFailedMs' | 'failingSinceMs' | 'nextMs' | 'pausedReason' | 'disabledMs' | 'disabledReason'
>;

/**
 * The sender's state of an endpoint, saved only while its settings are those it read (`updatedMs`): a change
 * made meanwhile (a resend from an earlier event, a new URL, disabled) wins, and the sender stops. False then.
 */
export async function saveWebhookState(db: Db, id: string, state: WebhookState, updatedMs: number): Promise<boolean> {
  const result = await db
    .updateTable('token_webhooks')
    .set({
      cursor: state.cursor,
      attempts: state.attempts,
      head_failed_ms: state.headFailedMs,
      failing_since_ms: state.failingSinceMs,
      next_ms: state.nextMs,
      paused_reason: state.pausedReason,
      disabled_ms: state.disabledMs,
      disabled_reason: state.disabledReason,
    })
    .where('id', '=', id)
    .where('updated_ms', '=', updatedMs)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteTokenWebhook(db: Db, id: string): Promise<void> {
  await db.deleteFrom('token_webhooks').where('id', '=', id).execute();
  await db.deleteFrom('token_webhook_attempts').where('webhook_id', '=', id).execute();
}

export async function tokenWebhooks(db: Db, tokenId: string): Promise<TokenWebhook[]> {
  const rows = await db.selectFrom('token_webhooks').selectAll().where('token_id', '=', tokenId).orderBy('created_ms').execute();
  return rows.map(toWebhook);
}

export async function findTokenWebhook(db: Db, id: string): Promise<TokenWebhook | null> {
  const row = await db.selectFrom('token_webhooks').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toWebhook(row) : null;
}

/** Endpoints that may have something to send now: enabled, due, behind the feed's last number. */
export async function dueTokenWebhooks(db: Db, lastSeq: number, now: number): Promise<TokenWebhook[]> {
  const rows = await db
    .selectFrom('token_webhooks')
    .selectAll()
    .where('disabled_ms', 'is', null)
    .where('next_ms', '<=', now)
    .where('cursor', '<', lastSeq)
    .where((eb) => eb.or([eb('claim_until_ms', 'is', null), eb('claim_until_ms', '<', now)]))
    .orderBy('next_ms')
    .limit(200)
    .execute();
  return rows.map(toWebhook);
}

/** Claims the endpoint for this instance until `untilMs`; false when another holds it. */
export async function claimWebhook(db: Db, id: string, instance: string, untilMs: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('token_webhooks')
    .set({ claim_until_ms: untilMs, claimed_by: instance })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('claim_until_ms', 'is', null), eb('claim_until_ms', '<', now), eb('claimed_by', '=', instance)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function releaseWebhook(db: Db, id: string, instance: string): Promise<void> {
  await db
    .updateTable('token_webhooks')
    .set({ claim_until_ms: null, claimed_by: null })
    .where('id', '=', id)
    .where('claimed_by', '=', instance)
    .execute();
}

export type AttemptTrigger = (typeof ATTEMPT_TRIGGERS)[number];
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export interface WebhookAttempt {
  id: string;
  webhookId: string;
  messageId: string;
  seq: number | null;
  type: string;
  trigger: AttemptTrigger;
  outcome: AttemptOutcome;
  code: number | null;
  problem: string | null;
  atMs: number;
  durationMs: number;
  /** What was sent and answered (./token-logs.ts reads it back one attempt at a time); absent: not kept. */
  exchange?: Exchange;
}

export async function logAttempt(db: Db, attempt: Omit<WebhookAttempt, 'id'>): Promise<WebhookAttempt> {
  const id = `wha_${randomBytes(8).toString('hex')}`;
  await db
    .insertInto('token_webhook_attempts')
    .values({
      id,
      webhook_id: attempt.webhookId,
      message_id: attempt.messageId,
      seq: attempt.seq,
      type: attempt.type,
      trigger: attempt.trigger,
      outcome: attempt.outcome,
      code: attempt.code,
      problem: attempt.problem,
      at_ms: attempt.atMs,
      duration_ms: attempt.durationMs,
      ...exchangeColumns(attempt.exchange),
    })
    .execute();
  const { exchange: _kept, ...logged } = attempt;
  return { id, ...logged };
}

/** An attempt as its log lists it: without what was sent and answered. */
const ATTEMPT_COLUMNS = [
  'id',
  'webhook_id',
  'message_id',
  'seq',
  'type',
  'trigger',
  'outcome',
  'code',
  'problem',
  'at_ms',
  'duration_ms',
] as const satisfies readonly (keyof TokenWebhookAttemptsTable)[];

const toAttempt = (row: Pick<Selectable<TokenWebhookAttemptsTable>, (typeof ATTEMPT_COLUMNS)[number]>): WebhookAttempt => ({
  id: row.id,
  webhookId: row.webhook_id,
  messageId: row.message_id,
  seq: row.seq === null ? null : Number(row.seq),
  type: row.type,
  trigger: row.trigger as AttemptTrigger,
  outcome: row.outcome as AttemptOutcome,
  code: row.code === null ? null : Number(row.code),
  problem: row.problem,
  atMs: Number(row.at_ms),
  durationMs: Number(row.duration_ms),
});

/** The endpoint's newest attempts, newest first (before `beforeMs` for the next page). */
export async function webhookAttempts(db: Db, webhookId: string, limit: number, beforeMs?: number): Promise<WebhookAttempt[]> {
  let query = db.selectFrom('token_webhook_attempts').select(ATTEMPT_COLUMNS).where('webhook_id', '=', webhookId);
  if (beforeMs !== undefined) query = query.where('at_ms', '<', beforeMs);
  return (await query.orderBy('at_ms', 'desc').orderBy('id').limit(limit).execute()).map(toAttempt);
}

/** Attempts older than the cut-off (pruning). */
export async function pruneWebhookAttempts(db: Db, beforeMs: number): Promise<number> {
  const result = await db.deleteFrom('token_webhook_attempts').where('at_ms', '<', beforeMs).executeTakeFirst();
  return Number(result.numDeletedRows);
}
