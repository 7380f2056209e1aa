import 'server-only';
import type { PortalConfig } from '../config';
import { registerJob } from '../jobs/registry';
import { log } from '../log';
import { lastEventSeq } from '../store/events';
import type { Store } from '../store';
import { claimWebhook, dueTokenWebhooks, releaseWebhook, type TokenWebhook } from '../store/token-webhooks';
import { sendPending, type SenderContext } from './worker';

/**
 * The `consumer-webhooks` job: every second, on every instance, each endpoint with something due is claimed in
 * the store (one instance sends to it at a time, so its events stay in order) and sent what it is owed (./worker.ts),
 * up to PARALLEL endpoints at once so that one slow receiver holds up no other. A pass for one endpoint ends after
 * PASS_MS; its claim outlives that by the last send's bound, and a stopped instance's claim lapses after CLAIM_MS.
 */

const PARALLEL = 8;
const PASS_MS = 20_000;
const CLAIM_MS = 60_000;

export async function sendDue(store: Pick<Store, 'db' | 'instance'>, context: SenderContext, signal?: AbortSignal): Promise<number> {
  const now = (context.now ?? Date.now)();
  const due = await dueTokenWebhooks(store.db, await lastEventSeq(store.db), now);
  let sent = 0;
  const one = async (hook: TokenWebhook) => {
    if (!(await claimWebhook(store.db, hook.id, store.instance, now + CLAIM_MS, now))) return;
    try {
      const pass = AbortSignal.any([AbortSignal.timeout(PASS_MS), ...(signal ? [signal] : [])]);
      sent += (await sendPending(store.db, hook, { ...context, signal: pass })).delivered;
    } catch (error) {
      log('webhooks').error({ err: error, webhook: hook.id }, 'a consumer webhook could not be sent to');
    } finally {
      await releaseWebhook(store.db, hook.id, store.instance).catch(() => undefined);
    }
  };
  const queue = [...due];
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
      for (let hook = queue.shift(); hook && !signal?.aborted; hook = queue.shift()) await one(hook);
    }),
  );
  return sent;
}

export function startConsumerWebhooks(store: Store, config: PortalConfig): void {
  const context: SenderContext = {
    secretKey: config.DELIVERY_SECRET_KEY ?? null,
    allowPrivate: config.DELIVERY_ALLOW_PRIVATE_TARGETS,
    retentionDays: config.EVENTS_RETENTION_DAYS,
  };
  registerJob({
    name: 'consumer-webhooks',
    everyMs: 1_000,
    lease: 'every instance',
    run: async (signal) => ((await sendDue(store, context, signal)) > 0 ? 'ok' : 'skipped'),
  });
}
