import { afterEach, describe, expect, it } from 'vitest';
import { keepCheckpoint, checkpointsAfter } from '@/lib/store/events';
import { CHECKPOINT_DAYS, pruneRetained, WEBHOOK_ATTEMPTS_DAYS } from '@/lib/store/maintenance';
import { openStore, type Store } from '@/lib/store/open';
import {
  claimWebhook,
  dueTokenWebhooks,
  findTokenWebhook,
  insertTokenWebhook,
  logAttempt,
  releaseWebhook,
  saveTokenWebhook,
  saveWebhookState,
  webhookAttempts,
  type TokenWebhook,
} from '@/lib/store/token-webhooks';
import { storeEngines } from '../support/store-engines';

/**
 * Consumer webhooks in the store, on both engines: one instance holds an endpoint at a time; the sender's state
 * never overwrites a person's change made meanwhile (a resend moves the cursor back; the sender stops); a person's
 * change never moves the cursor the sender advanced; pruning takes attempts after 30 days and checkpoints after 90.
 */

const DAY = 86_400_000;
const now = Date.now();
const hook: TokenWebhook = {
  id: 'twh_000000000001',
  tokenId: 'tok_000000000001',
  url: 'https://hooks.example.com/a',
  kinds: ['pick.settled'],
  secret: 'v2.sealed',
  cursor: 10,
  attempts: 0,
  headFailedMs: null,
  failingSinceMs: null,
  nextMs: now,
  pausedReason: null,
  disabledMs: null,
  disabledReason: null,
  createdBy: 'ed@example.com',
  createdMs: now,
  confirmedBy: 'ed@example.com',
  confirmedMs: now,
  updatedMs: now,
};

describe.each(storeEngines())('consumer webhooks in the store on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  const fresh = async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    await insertTokenWebhook(store.db, hook);
    return store;
  };

  it('lets one instance hold an endpoint at a time, until it lets go or its claim lapses', async () => {
    const { db } = await fresh();
    expect((await dueTokenWebhooks(db, 11, now)).map((h) => h.id)).toEqual([hook.id]);
    expect(await dueTokenWebhooks(db, 10, now)).toEqual([]);
    expect(await claimWebhook(db, hook.id, 'a', now + 60_000, now)).toBe(true);
    expect(await claimWebhook(db, hook.id, 'b', now + 60_000, now)).toBe(false);
    expect(await dueTokenWebhooks(db, 11, now)).toEqual([]);
    expect(await claimWebhook(db, hook.id, 'b', now + 120_000, now + 61_000)).toBe(true);
    await releaseWebhook(db, hook.id, 'a');
    expect(await claimWebhook(db, hook.id, 'a', now + 60_000, now + 62_000)).toBe(false);
    await releaseWebhook(db, hook.id, 'b');
    expect(await claimWebhook(db, hook.id, 'a', now + 60_000, now + 62_000)).toBe(true);
  });

  it('keeps a person’s change over the sender’s state, and the sender’s cursor over a person’s other changes', async () => {
    const { db } = await fresh();
    const state = { ...hook, cursor: 12 };
    expect(await saveWebhookState(db, hook.id, state, hook.updatedMs)).toBe(true);
    // A person disables it (the cursor they read, 10, is not written back).
    await saveTokenWebhook(db, { ...hook, disabledMs: now, disabledReason: 'by ed', updatedMs: now + 1 });
    expect(await findTokenWebhook(db, hook.id)).toMatchObject({ cursor: 12, disabledMs: now });
    // The sender, still on the old settings, saves nothing more.
    expect(await saveWebhookState(db, hook.id, { ...state, cursor: 13 }, hook.updatedMs)).toBe(false);
    // A resend from an earlier event moves it back.
    await saveTokenWebhook(db, { ...hook, cursor: 5, updatedMs: now + 2 }, true);
    expect((await findTokenWebhook(db, hook.id))!.cursor).toBe(5);
  });

  it('prunes attempts after 30 days and checkpoints after 90, keeping the newer', async () => {
    const { db } = await fresh();
    const attempt = {
      webhookId: hook.id,
      messageId: 'evt_1',
      seq: 1,
      type: 'pick.settled',
      trigger: 'delivery' as const,
      outcome: 'delivered' as const,
      code: 200,
      problem: null,
      durationMs: 3,
    };
    await logAttempt(db, { ...attempt, atMs: now - (WEBHOOK_ATTEMPTS_DAYS + 1) * DAY });
    const kept = await logAttempt(db, { ...attempt, atMs: now - (WEBHOOK_ATTEMPTS_DAYS - 1) * DAY });
    const checkpoint = { tokenId: hook.tokenId, fromSeq: 1, count: 1, lastHash: 'h', jws: 'j' };
    await keepCheckpoint(db, { ...checkpoint, toSeq: 1, atMs: now - (CHECKPOINT_DAYS + 1) * DAY });
    await keepCheckpoint(db, { ...checkpoint, toSeq: 2, atMs: now - (CHECKPOINT_DAYS - 1) * DAY });
    const pruned = await pruneRetained(db, { auditDays: 365, changesDays: 365 });
    expect(pruned).toMatchObject({ webhookAttempts: 1, checkpoints: 1 });
    expect((await webhookAttempts(db, hook.id, 10)).map((a) => a.id)).toEqual([kept.id]);
    expect((await checkpointsAfter(db, hook.tokenId, 0, 10)).map((c) => c.toSeq)).toEqual([2]);
  });
});
