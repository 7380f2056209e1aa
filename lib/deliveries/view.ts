import 'server-only';
import { toAppError, type AppErrorJson } from '../errors';
import { fromStore } from '../store';
import { countResettled } from '../store/delivered';
import { findDelivery, isDeliveryId, latestRuns, listDeliveries, listRuns, type Delivery, type Run } from '../store/deliveries';
import { emptyStreaks } from '../store/delivery-runs';
import { describeSchedule, nextRuns } from './schedule';
import { maskedWebhookUrl } from './targets';
import { EMPTY_RUNS_ALERT, RESETTLED_DAYS } from './thresholds';
import type { deliveryViewSchema } from '../vocabulary/delivery-run';
import type { z } from 'zod';

export { EMPTY_RUNS_ALERT, RESETTLED_DAYS };

/** A delivery as the API and the pages show it, and the pages' reads (or the error to show). */

/**
 * A delivery as answers show it: no secret, the schedule in words, the next runs, the last run. A webhook
 * URL's path and query are a secret too: only the delivery's creator sees them.
 */
export type DeliveryView = z.infer<typeof deliveryViewSchema>;

export function deliveryView(d: Delivery, last: Run | undefined, viewer: string, emptyInARow = 0): DeliveryView {
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
    // Files are placed encrypted to this key: its fingerprint, for the recipient to compare with their own.
    encryptedTo: d.encryptTo?.fingerprint ?? null,
    corrections: d.corrections,
    paused: d.paused,
    pauseReason: d.pauseReason,
    failuresInARow: d.failures,
    /** The latest finished runs that delivered 0 records, in a row (counted up to EMPTY_RUNS_ALERT). */
    emptyRunsInARow: emptyInARow,
    /** As much attention as failures: EMPTY_RUNS_ALERT empty runs in a row. */
    deliversNothing: emptyInARow >= EMPTY_RUNS_ALERT,
    lastRun: last ?? null,
    createdBy: d.createdBy,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

type Result<T> = ({ ok: true } & T) | { ok: false; error: AppErrorJson };

/** Every delivery as `viewer` sees it, with its last run and its empty runs in a row: the API's list and the page's. */
export async function deliveryViews(viewer: string): Promise<DeliveryView[]> {
  const [all, last, empty] = await fromStore((db) => Promise.all([listDeliveries(db), latestRuns(db), emptyStreaks(db, EMPTY_RUNS_ALERT)]));
  return all.map((d) => deliveryView(d, last.get(d.id), viewer, empty.get(d.id)));
}

export async function deliveriesForPage(viewer: string): Promise<Result<{ deliveries: DeliveryView[] }>> {
  try {
    return { ok: true, deliveries: await deliveryViews(viewer) };
  } catch (error) {
    return { ok: false, error: toAppError(error).toJSON() };
  }
}

export async function runsForPage(id: string): Promise<Result<{ delivery: Delivery | null; runs: Run[]; resettled: number }>> {
  try {
    const delivery = isDeliveryId(id) ? ((await fromStore((db) => findDelivery(db, id))) ?? null) : null;
    if (!delivery) return { ok: true, delivery, runs: [], resettled: 0 };
    const since = Date.now() - RESETTLED_DAYS * 86_400_000;
    const [runs, resettled] = await fromStore((db) => Promise.all([listRuns(db, id, 200), countResettled(db, since, id)]));
    return { ok: true, delivery, runs, resettled };
  } catch (error) {
    return { ok: false, error: toAppError(error).toJSON() };
  }
}

/** The overview's tile and line: how many deliveries, the latest run of any, and those failing, paused, or delivering nothing (editors and admins). */
export async function deliveryAlerts(): Promise<{
  count: number;
  lastRun: (Run & { delivery: string }) | null;
  failing: string[];
  paused: string[];
  empty: string[];
  /** Records deliveries delivered settled whose result changed after (the last RESETTLED_DAYS days). */
  resettled: number;
} | null> {
  try {
    const since = Date.now() - RESETTLED_DAYS * 86_400_000;
    const [all, last, empty, resettled] = await fromStore((db) =>
      Promise.all([listDeliveries(db), latestRuns(db), emptyStreaks(db, EMPTY_RUNS_ALERT), countResettled(db, since)]),
    );
    const latest = all
      .map((d) => ({ d, run: last.get(d.id) }))
      .filter((x): x is { d: Delivery; run: Run } => !!x.run)
      .sort((a, b) => b.run.startedAt.localeCompare(a.run.startedAt))[0];
    return {
      count: all.length,
      lastRun: latest ? { ...latest.run, delivery: latest.d.name } : null,
      failing: all.filter((d) => !d.paused && d.failures > 0).map((d) => d.name),
      paused: all.filter((d) => d.paused).map((d) => d.name),
      empty: all.filter((d) => !d.paused && (empty.get(d.id) ?? 0) >= EMPTY_RUNS_ALERT).map((d) => d.name),
      resettled,
    };
  } catch {
    return null;
  }
}
