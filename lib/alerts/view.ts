import 'server-only';
import { toAppError } from '../errors';
import { fromStore } from '../store';
import { latestAlerts } from '../store/alerts';
import { alertView } from './responses';

/** What /alerts shows: the notification log, or the error to show. */
export async function alertsForPage() {
  try {
    return { ok: true as const, alerts: (await fromStore((db) => latestAlerts(db))).map(alertView) };
  } catch (error) {
    return { ok: false as const, error: toAppError(error).toJSON() };
  }
}
