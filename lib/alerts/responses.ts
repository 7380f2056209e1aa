import 'server-only';
import type { PortalSession } from '../auth/session';
import { AppError, toAppError } from '../errors';
import { fromStore } from '../store';
import { latestAlerts, resendAlert, type Alert } from '../store/alerts';

/** GET /api/alerts (the notification log) and POST /api/alerts/<id>/resend ("send again"); admins. */

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'Cache-Control': 'private, no-store' } });

export const alertView = (a: Alert) => ({
  id: a.id,
  kind: a.kind,
  sport: a.sport,
  state: a.state,
  side: a.side,
  reason: a.reason,
  detail: a.detail,
  createdAt: new Date(a.createdMs).toISOString(),
  dueAt: new Date(a.dueMs).toISOString(),
  status: a.status,
  attempts: a.attempts,
  nextTryAt: a.nextMs === null ? null : new Date(a.nextMs).toISOString(),
  error: a.error,
  sentAt: a.sentMs === null ? null : new Date(a.sentMs).toISOString(),
  channel: 'email',
  recipients: a.recipients,
});

export async function alertsResponse(): Promise<Response> {
  try {
    return json({ data: (await fromStore((db) => latestAlerts(db))).map(alertView) });
  } catch (error) {
    return toAppError(error).toResponse();
  }
}

export async function resendResponse(id: string, _session: PortalSession): Promise<Response> {
  try {
    if (!/^[\w:. -]{1,200}$/.test(id)) throw new AppError({ code: 'NOT_FOUND', message: 'There is no such alert.' });
    const queued = await fromStore((db) => resendAlert(db, id, Date.now()));
    if (!queued) throw new AppError({ code: 'NOT_FOUND', message: 'There is no such alert, or it is on its way already.' });
    return json({ id, status: 'pending' }, 202);
  } catch (error) {
    return toAppError(error).toResponse();
  }
}
