import 'server-only';
import path from 'node:path';
import { getConfig, type PortalConfig } from '../config';
import type { Store } from '../store';
import type { Delivery } from '../store/deliveries';
import { runNow, startDeliveryLoop, type DeliveryLoop } from './scheduler';

/** This process's delivery scheduler (instrumentation starts it; route handlers reach it through globalThis). */
const holder = globalThis as typeof globalThis & { __deliveries?: DeliveryLoop };

export function deliveryRoot(config: PortalConfig): string {
  // A directory chosen at run time, not a file of the build: not traced.
  return path.resolve(/*turbopackIgnore: true*/ config.DELIVERY_ROOT ?? `${config.PORTAL_DATA_DIR}/deliveries`);
}

export function startDeliveries(store: Store, config: PortalConfig): void {
  if (holder.__deliveries) return;
  holder.__deliveries = startDeliveryLoop({
    db: store.db,
    instance: store.instance,
    settings: {
      root: deliveryRoot(config),
      secretKey: config.DELIVERY_SECRET_KEY ?? null,
      allowPrivate: config.DELIVERY_ALLOW_PRIVATE_TARGETS,
    },
  });
}

export function deliveryRuntime() {
  const config = getConfig();
  const loop = holder.__deliveries;
  return {
    allowPrivate: config.DELIVERY_ALLOW_PRIVATE_TARGETS,
    secretKey: config.DELIVERY_SECRET_KEY ?? null,
    context: loop?.context ?? null,
    runNow: async (delivery: Delivery) => runNow(loop!.context, delivery),
  };
}
