import 'server-only';
import type { PortalConfig } from '../config';
import { portalOrigin } from '../config';
import { checkAuditTrail } from './audit-check';
import { checkTokens } from './token-check';
import { sealedCheck } from '../audit/sealing';
import { feedPeriodMs } from '../feed-health';
import { watchPolling } from '../feed-health/watchdog';
import { processSlot } from '../process-state';
import { registerJob } from '../jobs/registry';
import { metrics } from '../metrics';
import type { Store } from '../store';
import { listWebhooks } from '../store/alert-channels';
import { sendDigests } from './digest';
import { dispatchAlerts } from './dispatch';
import { alertMailer } from './mail';
import { recipientsOf, subscriptions } from './subscriptions';
import { channelSender } from './webhooks';

/**
 * The alerts' job, on every instance whether it polls or not (lib/jobs/registry.ts runs it): every
 * ALERT_CHECK_SECONDS it watches that some instance polls, sends what is due by email and to webhooks,
 * sends the daily digests and, when its turn comes, checks the audit trail. Claims in the store make
 * each send happen once however many instances tick.
 */

export interface AlertLoop {
  stop(): Promise<void>;
  /** One check now (tests and the benchmark). */
  tick(): Promise<void>;
}

const DEFAULT_PERIOD_MS = 300_000;
const loopSlot = processSlot<AlertLoop>('alerts');

export function startAlerts(store: Store, config: PortalConfig): AlertLoop {
  const kept = loopSlot.get();
  if (kept) return kept;
  const db = store.db;
  const send = alertMailer(config);
  const portalUrl = portalOrigin(config);
  const holdMs = config.ALERT_HOLD_SECONDS * 1000;
  const ownPollMs = config.CHANGES_POLL_SECONDS > 0 ? config.CHANGES_POLL_SECONDS * 1000 : null;
  const webhooks = {
    list: () => listWebhooks(db),
    post: channelSender({
      secretKey: config.DELIVERY_SECRET_KEY ?? null,
      allowPrivate: config.DELIVERY_ALLOW_PRIVATE_TARGETS,
      portalUrl,
      send,
    }),
  };
  // Each step runs whatever happened to the one before; what failed is the run's problem (logged by the registry).
  const check = async () => {
    const now = Date.now();
    const problems: string[] = [];
    const step = async (what: string, work: () => Promise<unknown>) =>
      work().catch((error: unknown) => void problems.push(`${what}: ${(error as Error).message}`));
    await step('API tokens could not be checked', () => checkTokens(db, now));
    // An instance that does not poll watches at the polling instances' period (or the default, if none ever polled).
    await step('the polling watchdog failed', async () =>
      watchPolling(db, { pollMs: (await feedPeriodMs(db, ownPollMs)) ?? DEFAULT_PERIOD_MS, holdMs, now }),
    );
    await step('alerts could not be dispatched', async () => {
      // Everyone's subscriptions read once a dispatch, not once an alert.
      let people: ReturnType<typeof subscriptions> | null = null;
      const recipients = (alert: Parameters<typeof recipientsOf>[1]) => recipientsOf(db, alert, (people ??= subscriptions(db)));
      const done = await dispatchAlerts(db, { now, recipients, send, portalUrl, webhooks });
      const m = metrics().alerts;
      m.inc({ channel: 'email', outcome: 'sent' }, done.sent);
      m.inc({ channel: 'email', outcome: 'failed' }, done.failed);
      m.inc({ channel: 'webhook', outcome: 'sent' }, done.webhooksSent);
      m.inc({ channel: 'webhook', outcome: 'failed' }, done.webhooksFailed);
    });
    await step('digests could not be sent', () => sendDigests(db, { now, hour: config.ALERT_DIGEST_HOUR, send, portalUrl }));
    await step('the audit trail could not be checked', () =>
      checkAuditTrail(db, { now, everyMs: config.AUDIT_VERIFY_HOURS * 3_600_000, check: sealedCheck(config) }),
    );
    if (problems.length > 0) throw new Error(problems.join('; '));
  };
  const job = registerJob({
    name: 'alerts',
    everyMs: config.ALERT_CHECK_SECONDS * 1000,
    firstAfterMs: config.ALERT_CHECK_SECONDS * 1000,
    lease: { own: 'every instance checks; a claim in the store makes each send happen once' },
    run: check,
    onStop: () => loopSlot.set(undefined),
  });
  const loop: AlertLoop = { stop: job.stop, tick: async () => void (await job.runNow()) };
  loopSlot.set(loop);
  return loop;
}
