import 'server-only';
import { toAppError, type AppErrorJson } from '../errors';
import { fromStore } from '../store';
import { findDelivery, isDeliveryId, latestRuns, listDeliveries, listRuns, type Delivery, type Run } from '../store/deliveries';
import { deliveryView } from './api';

/** The pages' reads: the same views the API answers with (lib/deliveries/api.ts), or the error to show. */

type Result<T> = ({ ok: true } & T) | { ok: false; error: AppErrorJson };

export async function deliveriesForPage(viewer: string): Promise<Result<{ deliveries: ReturnType<typeof deliveryView>[] }>> {
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
