import 'server-only';
import type { Kysely } from 'kysely';
import type { PortalSession } from '../auth/principal';
import { maskedWebhookUrl } from '../deliveries/targets';
import { settle, type Settled } from '../errors';
import { fromStore } from '../store';
import { visibleToken } from '../tokens/read';
import { lastEventSeq } from '../store/events';
import type { Database } from '../store/schema';
import type { ApiToken } from '../store/tokens';
import { tokenWebhooks, webhookAttempts, type TokenWebhook, type WebhookAttempt } from '../store/token-webhooks';
import { awaitingOwner } from './confirm';
import { tokenPause } from './worker';
import type { z } from 'zod';
import type { attemptViewSchema, endpointSavedSchema, endpointViewSchema } from '../vocabulary/token-webhook';

/** A consumer webhook as its token's page and the API show it: the URL masked, the secret never; its state in words. */

export const ATTEMPTS_SHOWN = 20;

export type EndpointView = z.infer<typeof endpointViewSchema>;
export type EndpointState = EndpointView['state'];
export type AttemptView = z.infer<typeof attemptViewSchema>;
export type EndpointSaved = z.infer<typeof endpointSavedSchema>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const attemptView = (a: WebhookAttempt): AttemptView => ({
  id: a.id,
  messageId: a.messageId,
  seq: a.seq,
  type: a.type,
  trigger: a.trigger,
  outcome: a.outcome,
  code: a.code,
  problem: a.problem,
  at: new Date(a.atMs).toISOString(),
  durationMs: a.durationMs,
});

/** Whether it waits for its token's owner to confirm it (lib/webhooks/confirm.ts), and whether the viewer is that owner. */
export interface Confirmation {
  awaiting: string | null;
  viewerIsOwner: boolean;
}

export function endpointView(
  hook: TokenWebhook,
  attempts: WebhookAttempt[],
  last: number,
  tokenPaused: string | null,
  now = Date.now(),
  confirmation: Confirmation = { awaiting: null, viewerIsOwner: false },
): EndpointView {
  const failing = hook.failingSinceMs !== null;
  // Its token may not act now, or it waits for its token's quota to come back (midnight UTC).
  const paused = tokenPaused ?? (hook.pausedReason !== null && hook.nextMs > now ? hook.pausedReason : null);
  const awaiting = hook.disabledMs === null && !tokenPaused ? confirmation.awaiting : null;
  const state: EndpointState =
    hook.disabledMs !== null ? 'disabled' : paused ? 'paused' : awaiting ? 'unconfirmed' : failing ? 'failing' : 'delivering';
  const lastProblem = attempts.find((a) => a.trigger === 'delivery' && a.outcome !== 'delivered')?.problem ?? null;
  return {
    id: hook.id,
    tokenId: hook.tokenId,
    url: maskedWebhookUrl(hook.url),
    kinds: hook.kinds,
    state,
    why:
      state === 'disabled'
        ? hook.disabledReason
        : state === 'paused'
          ? paused
          : state === 'unconfirmed'
            ? awaiting
            : state === 'failing'
              ? lastProblem
              : null,
    wholeUrl: awaiting && confirmation.viewerIsOwner ? hook.url : null,
    deliveredUpTo: hook.cursor,
    behind: Math.max(0, last - hook.cursor),
    failingSince: iso(hook.failingSinceMs),
    nextAttemptAt: state === 'failing' || (state === 'paused' && !tokenPaused) ? iso(hook.nextMs) : null,
    createdBy: hook.createdBy,
    createdAt: new Date(hook.createdMs).toISOString(),
    confirmedBy: hook.confirmedBy,
    updatedAt: new Date(hook.updatedMs).toISOString(),
    attempts: attempts.map(attemptView),
  };
}

/** Every endpoint of a token, with its newest attempts, as `viewer` may see them. */
export async function endpointViews(db: Kysely<Database>, token: ApiToken, viewer: string, now = Date.now()): Promise<EndpointView[]> {
  const hooks = await tokenWebhooks(db, token.id);
  if (hooks.length === 0) return [];
  const [last, paused] = await Promise.all([lastEventSeq(db), tokenPause(db, token, now)]);
  return Promise.all(
    hooks.map(async (hook) =>
      endpointView(hook, await webhookAttempts(db, hook.id, ATTEMPTS_SHOWN), last, paused, now, {
        awaiting: await awaitingOwner(db, hook, token),
        viewerIsOwner: viewer === token.owner,
      }),
    ),
  );
}

/** A token's webhooks for its page (null: no token this person may see); `paused`: why none of them sends now. */
export function webhooksForPage(
  user: PortalSession['user'],
  tokenId: string,
): Promise<Settled<{ endpoints: EndpointView[]; paused: string | null } | null>> {
  return settle(
    (async () => {
      const token = await visibleToken(user, tokenId);
      if (!token) return null;
      return fromStore(async (db) => ({
        endpoints: await endpointViews(db, token, user.email),
        paused: await tokenPause(db, token, Date.now()),
      }));
    })(),
  );
}
