import { startIndexKeeper } from '../records/index-keeper';
import { startIndexWalks } from '../records/index-walk';
import { keepIndexOnWorker } from '../history/capture';
import 'server-only';
import { ConfigError, getConfig } from '../config';
import path from 'node:path';
import { getStore, observeStoreWith, StoreError } from '../store';
import { setAtRestKey } from '../store/at-rest';
import { sealWebhookUrls } from '../store/seal-urls';
import { notePortalRunning } from '../store/backup';
import { pruneHourly } from '../jobs/pruning';
import { checkpointEvents } from '../events/checkpoints';
import { startConsumerWebhooks } from '../webhooks/start';
import { recordSettingsChange } from '../audit/settings';
import { importSavedAuditEntries } from '../audit/outbox';
import { startAlerts } from '../alerts/start';
import { listenForAlerts } from '../alerts/listen';
import { startChangeFeed } from './change-feed';
import { startDeliveries } from '../deliveries/start';
import { spoolDirOf } from '../config/spool';
import { sweepSpoolHourly } from '../deliveries/spool-sweep';
import { installRequestPolicy } from '../http/request-policy';
import { serveV1OnNode } from '../api-v1/http';
import { observeJob, observeStore, renderMetrics } from '../metrics';
import { server } from '../process-state';
import { attachJobStore, observeJobsWith } from '../jobs/registry';
import { log } from '../log';
import { requestFinisher } from '../metrics/requests';
import { shutdownPortal } from './shutdown';
import { startSigning } from '../proof/signer';
import { startSealing } from '../audit/sealing';

/**
 * Everything the portal starts with its server, once, from instrumentation.ts (Node runtime only): the
 * configuration checked (a wrong value stops the process naming the variable), the request policy handed
 * to scripts/portal-server.mjs, the store opened (waiting, with backoff, for a PostgreSQL that is not up
 * yet; migrations applied), hourly pruning, the settings change recorded in the audit trail, the change
 * feed's poller, the delivery scheduler and the alerts' loop.
 */
export async function startPortal(): Promise<void> {
  try {
    const config = getConfig();
    // scripts/portal-server.mjs counts and logs every request, and serves /metrics, through these (lib/log, lib/metrics).
    server.requests = {
      finished: requestFinisher(config),
      render: renderMetrics,
      token: config.METRICS_TOKEN ?? null,
      listen: config.METRICS_LISTEN ?? null,
    };
    server.v1 = serveV1OnNode;
    installRequestPolicy(config);
    if (config.METRICS_TOKEN || config.METRICS_LISTEN) {
      observeStoreWith(observeStore);
      observeJobsWith(observeJob);
    }
    // Webhook URLs are credentials: sealed in the store under DELIVERY_SECRET_KEY (lib/store/at-rest.ts).
    setAtRestKey(config.DELIVERY_SECRET_KEY ?? null);
    const store = await getStore({ attempts: Infinity });
    // Background work (lib/jobs/registry.ts) keeps its leases and its last runs in the store.
    attachJobStore({ db: store.db, instance: store.instance });
    if (config.DELIVERY_SECRET_KEY)
      void sealWebhookUrls(store.db).then(
        (sealed) =>
          sealed > 0 && log('store').info({ sealed }, `${sealed} webhook URLs kept before they were sealed at rest are sealed now`),
        (error: unknown) =>
          log('store').error({ err: error }, 'webhook URLs kept in clear could not be sealed yet; tried again at the next start'),
      );
    // On the embedded database: a pid file, so `npm run restore` refuses while this portal runs.
    if (store.target.engine === 'sqlite') notePortalRunning(path.dirname(store.target.file));
    // Audit entries an earlier stop saved because the store was away are written before anything new.
    await importSavedAuditEntries(config.PORTAL_DATA_DIR).catch((error: unknown) =>
      log('audit').error({ err: error }, 'audit entries saved by an earlier stop could not be written yet; tried again at the next start'),
    );
    // The signing key read and its public half published; a missing, unreadable or retired key stops the start.
    const signing = await startSigning(store).catch((error: unknown) => {
      throw new ConfigError([(error as Error).message]);
    });
    log('proof').info({ kid: signing.kid }, `signing manifests and checkpoints with key ${signing.kid}`);
    // Said once: where the key that seals delivery and webhook secrets came from (docs/configuration.md).
    if (config.secretKey.made)
      log('deliveries').info(`made the key that seals delivery and webhook secrets: ${config.secretKey.file} (keep it with every backup)`);
    else if (config.secretKey.source === 'none')
      log('deliveries').warn(
        'DELIVERY_SECRET_KEY is not set (required with DATABASE_URL to store secrets): SFTP, webhook, S3 and PostgreSQL deliveries and consumer webhooks cannot be saved',
      );
    const sealing = startSealing(store.db, config);
    pruneHourly(
      store.db,
      { auditDays: config.AUDIT_RETENTION_DAYS, changesDays: config.CHANGES_RETENTION_DAYS, historyDays: config.HISTORY_RETENTION_DAYS },
      sealing.pruning,
    );
    sweepSpoolHourly(spoolDirOf(config));
    await recordSettingsChange(store, config);
    listenForAlerts(); // before anything that publishes what alerts hear (lib/jobs/signals.ts)
    startChangeFeed(store, config);
    startDeliveries(store, config);
    startAlerts(store, config);
    checkpointEvents(store.db, config.EVENTS_RETENTION_DAYS);
    startConsumerWebhooks(store, config);
    // The index of the licensed set follows the record history (built from it at the first start after 0027).
    startIndexKeeper(store.db, keepIndexOnWorker); // on the history's worker thread: no request waits on the index
    // …which the whole licensed set fills at the first start and refreshes daily (off with the change feed).
    startIndexWalks(store.db, config.CHANGES_POLL_SECONDS === 0 ? 0 : config.INDEX_WALK_HOURS);
    // scripts/portal-server.mjs calls it on SIGTERM: the Node server knows the signal, this layer the loops.
    server.shutdown = () => shutdownPortal(config.SHUTDOWN_GRACE_SECONDS * 1000, config.PORTAL_DATA_DIR);
  } catch (error) {
    const known = error instanceof ConfigError || error instanceof StoreError;
    log('portal').fatal(known ? error.message : String(error));
    process.exit(1);
  }
}
