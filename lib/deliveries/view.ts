import 'server-only';
import { toAppError, type AppErrorJson } from '../errors';
import { fromStore } from '../store';
import { findDelivery, isDeliveryId, latestRuns, listDeliveries, listRuns, type Delivery, type Run } from '../store/deliveries';
import { describeSchedule, nextRuns } from './schedule';
import { maskedWebhookUrl } from './targets';

/** A delivery as the API and the pages show it, and the pages' reads (or the error to show). */

/**
 * A delivery as answers show it: no secret, the schedule in words, the next runs, the last run. A webhook
 * URL's path and query are a secret too: only the delivery's creator sees them.
 */
export type DeliveryView = ReturnType<typeof deliveryView>;

export function deliveryView(d: Delivery, last: Run | undefined, viewer: string) {
  const destination =
    d.destination.type === 'webhook' && viewer !== d.createdBy
      ? { ...d.destination, url: maskedWebhookUrl(String(d.destination.url)) }
      : d.destination;
  return {
    id: d.id,
    name: d.name,
    kind: d.kind,
    format: d.format,
    filters: d.filters,
    schedule: d.schedule,
    scheduleInWords: describeSchedule(d.schedule),
    nextRuns: d.paused ? [] : nextRuns(d.schedule, 3),
    destination: { ...destination, ...(d.destination.type === 'directory' ? {} : { secret: d.secret ? 'set' : 'not set' }) },
    hostKey: d.hostKey,
    paused: d.paused,
    pauseReason: d.pauseReason,
    failuresInARow: d.failures,
    lastRun: last ?? null,
    createdBy: d.createdBy,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

type Result<T> = ({ ok: true } & T) | { ok: false; error: AppErrorJson };

export async function deliveriesForPage(viewer: string): Promise<Result<{ deliveries: DeliveryView[] }>> {
  try {
    const [all, last] = await fromStore((db) => Promise.all([listDeliveries(db), latestRuns(db)]));
    return { ok: true, deliveries: all.map((d) => deliveryView(d, last.get(d.id), viewer)) };
  } catch (error) {
    return { ok: false, error: toAppError(error).toJSON() };
  }
}

export async function runsForPage(id: string): Promise<Result<{ delivery: Delivery | null; runs: Run[] }>> {
  try {
    const delivery = isDeliveryId(id) ? ((await fromStore((db) => findDelivery(db, id))) ?? null) : null;
    return { ok: true, delivery, runs: delivery ? await fromStore((db) => listRuns(db, id, 200)) : [] };
  } catch (error) {
    return { ok: false, error: toAppError(error).toJSON() };
  }
}

/** The overview's line: deliveries failing or paused (editors and admins). */
export async function deliveryAlerts(): Promise<{ failing: string[]; paused: string[] } | null> {
  try {
    const all = await fromStore(listDeliveries);
    return {
      failing: all.filter((d) => !d.paused && d.failures > 0).map((d) => d.name),
      paused: all.filter((d) => d.paused).map((d) => d.name),
    };
  } catch {
    return null;
  }
}
