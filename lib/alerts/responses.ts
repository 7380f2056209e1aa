import 'server-only';
import type { PortalSession } from '../auth/session';
import { AppError, toAppError } from '../errors';
import { fromStore } from '../store';
import { latestAlerts, resendAlert, type Alert } from '../store/alerts';
import { ALERT_KIND_LABELS, ALERT_KINDS, setSubscription, subscriptionOf, subscriptions, type AlertKind } from './subscriptions';

/**
 * GET /api/alerts (the notification log) and POST /api/alerts/<id>/resend ("send again"), admins; each
 * person's choice of alert emails (/api/alerts/subscription) and everyone's (/api/alerts/subscriptions, admins).
 */

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

const MAX_BODY = 4_096;

/** GET/PUT /api/alerts/subscription: the signed-in person's own choice of alert emails (every role). */
export async function subscriptionResponse(request: Request, session: PortalSession): Promise<Response> {
  try {
    const email = session.user.email;
    if (request.method === 'PUT') {
      const text = await request.text();
      if (text.length > MAX_BODY)
        throw new AppError({ code: 'PAYLOAD_TOO_LARGE', message: `A subscription is at most ${MAX_BODY} bytes.` });
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      const kinds = (body as { kinds?: unknown } | null)?.kinds;
      if (!Array.isArray(kinds) || kinds.some((k) => typeof k !== 'string'))
        throw invalidSubscription({ kinds: `must be a list of alert kinds: ${ALERT_KINDS.join(', ')}` });
      const unknown = (kinds as string[]).filter((k) => !(ALERT_KINDS as readonly string[]).includes(k));
      if (unknown.length)
        throw invalidSubscription({
          kinds: `${unknown.map((k) => `"${k.slice(0, 40)}"`).join(', ')} is not an alert kind. Allowed: ${ALERT_KINDS.join(', ')}`,
        });
      await fromStore((db) => setSubscription(db, email, kinds as AlertKind[]));
    }
    const mine = await fromStore((db) => subscriptionOf(db, email));
    return json({
      kinds: mine?.kinds ?? [],
      chosen: mine?.chosen ?? false,
      available: ALERT_KINDS.map((kind) => ({ kind, label: ALERT_KIND_LABELS[kind] })),
    });
  } catch (error) {
    return toAppError(error).toResponse();
  }
}

/** GET /api/alerts/subscriptions: everyone's (admins). */
export async function subscriptionsResponse(): Promise<Response> {
  try {
    return json({ data: await fromStore(subscriptions) });
  } catch (error) {
    return toAppError(error).toResponse();
  }
}

const invalidSubscription = (details: Record<string, string>) =>
  new AppError({
    code: 'INVALID_FILTERS',
    message: `Invalid subscription: ${Object.entries(details)
      .map(([field, problem]) => `${field} ${problem}`)
      .join('; ')}.`,
    details,
  });
