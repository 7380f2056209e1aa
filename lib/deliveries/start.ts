import 'server-only';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { getConfig, type PortalConfig } from '../config';
import type { Store } from '../store';
import { listDeliveries, updateDelivery, type Delivery } from '../store/deliveries';
import type { Database } from '../store/schema';
import { spoolDirOf } from '../config/spool';
import type { DeliverySettings } from './run';
import { runNow, startDeliveryLoop, type DeliveryLoop } from './scheduler';
import { isLegacySecret, olderPostgresBinding, openSecret, sealSecret, secretBinding } from './secrets';
import { processSlot } from '../process-state';

/** This process's delivery job (lib/jobs/registry.ts runs it), kept for the runs people start by hand. */
const loopSlot = processSlot<DeliveryLoop>('deliveries');

export function deliveryRoot(config: PortalConfig): string {
  // A directory chosen at run time, not a file of the build: not traced.
  return path.resolve(/*turbopackIgnore: true*/ config.DELIVERY_ROOT ?? `${config.PORTAL_DATA_DIR}/deliveries`);
}

export function deliverySettings(config: PortalConfig): Required<Omit<DeliverySettings, 'resolver' | 'allowedAddress'>> {
  return {
    root: deliveryRoot(config),
    secretKey: config.DELIVERY_SECRET_KEY ?? null,
    allowPrivate: config.DELIVERY_ALLOW_PRIVATE_TARGETS,
    spoolDir: spoolDirOf(config),
    spoolMinFreeMb: config.DELIVERY_SPOOL_MIN_FREE_MB,
    limits: { MAX_EXPORTS_PER_USER: config.MAX_EXPORTS_PER_USER, MAX_CONCURRENT_EXPORTS: config.MAX_CONCURRENT_EXPORTS },
  };
}

/** Secrets saved before they were bound to their destination are bound to the one they have now, once. */
export async function bindLegacySecrets(db: Kysely<Database>, secretKey: string | null): Promise<number> {
  if (!secretKey) return 0;
  let bound = 0;
  for (const delivery of await listDeliveries(db)) {
    const binding = secretBinding(delivery.destination);
    if (!delivery.secret || !isLegacySecret(delivery.secret) || binding === null) continue;
    try {
      await updateDelivery(db, delivery.id, { secret: sealSecret(openSecret(delivery.secret, secretKey, null), secretKey, binding) });
      bound += 1;
    } catch {
      // Unreadable with this key: left as it is, and its runs say so.
    }
  }
  return bound;
}

/** PostgreSQL passwords sealed before their binding named sslmode, schema and table are bound to those they have now, once. */
export async function bindOlderPostgresSecrets(db: Kysely<Database>, secretKey: string | null): Promise<number> {
  if (!secretKey) return 0;
  let bound = 0;
  for (const delivery of await listDeliveries(db)) {
    if (delivery.destination.type !== 'postgres' || !delivery.secret || isLegacySecret(delivery.secret)) continue;
    try {
      openSecret(delivery.secret, secretKey, secretBinding(delivery.destination));
      continue; // bound already
    } catch {
      // Sealed under the older binding, or another key: tried below.
    }
    try {
      const plain = openSecret(delivery.secret, secretKey, olderPostgresBinding(delivery.destination));
      await updateDelivery(db, delivery.id, { secret: sealSecret(plain, secretKey, secretBinding(delivery.destination)!) });
      bound += 1;
    } catch {
      // Unreadable with this key: left as it is, and its runs say so.
    }
  }
  return bound;
}

export function startDeliveries(store: Store, config: PortalConfig): void {
  if (loopSlot.get()) return;
  const settings = deliverySettings(config);
  loopSlot.set(startDeliveryLoop({ db: store.db, instance: store.instance, settings }));
  void bindLegacySecrets(store.db, settings.secretKey)
    .then(() => bindOlderPostgresSecrets(store.db, settings.secretKey))
    .catch((error: Error) => console.error(`[deliveries] could not bind older secrets to their destinations: ${error.message}`));
}

/** The delivery job's context, when this process runs it (corrections after a poll). */
export const deliveryContext = () => loopSlot.get()?.context ?? null;

export function deliveryRuntime() {
  const config = getConfig();
  const loop = loopSlot.get();
  return {
    allowPrivate: config.DELIVERY_ALLOW_PRIVATE_TARGETS,
    secretKey: config.DELIVERY_SECRET_KEY ?? null,
    minIntervalMinutes: config.DELIVERY_MIN_INTERVAL_MINUTES,
    limits: { maxPerUser: config.DELIVERY_MAX_PER_USER },
    context: loop?.context ?? null,
    runNow: async (delivery: Delivery) => runNow(loop!.context, delivery),
  };
}
