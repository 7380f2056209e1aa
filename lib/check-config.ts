import 'server-only';
import { ConfigError, getConfig } from './config';
import { getStore, StoreError } from './store';
import { pruneHourly } from './store/maintenance';
import { recordSettingsChange } from './audit/settings';
import { startChangeFeed } from './changes/start';
import { startDeliveries } from './deliveries/start';
import { installRequestPolicy } from './request-policy';

// Imported once by instrumentation.ts at server start (Node runtime only): the configuration and the
// request policy scripts/portal-server.mjs applies, then the store (waiting, with backoff, for a
// PostgreSQL that is not up yet; migrations applied).
try {
  const config = getConfig();
  if (config.NODE_ENV === 'production' && !config.AUTH_SECRET && !config.NEXTAUTH_SECRET) {
    throw new ConfigError(['AUTH_SECRET is required in production (or NEXTAUTH_SECRET)']);
  }
  installRequestPolicy(config);
  const store = await getStore({ attempts: Infinity });
  pruneHourly(store.db, { auditDays: config.AUDIT_RETENTION_DAYS, changesDays: config.CHANGES_RETENTION_DAYS });
  await recordSettingsChange(store, config);
  startChangeFeed(store, config);
  startDeliveries(store, config);
} catch (error) {
  const known = error instanceof ConfigError || error instanceof StoreError;
  console.error(`[portal] ${known ? error.message : String(error)}`);
  process.exit(1);
}
