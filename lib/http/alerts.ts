import 'server-only';
import type { z } from 'zod';
import { subscriptionBody, type subscriptionAnswerSchema, type subscriptionsSchema } from '../alerts/answers';
import { readJsonObject } from '../net/json-body';
import type { resendAlertSchema } from '../alerts/answers';
import type { PortalSession } from '../auth/principal';
import { AppError, toAppError, invalidFields } from '../errors';
import { fromStore } from '../store';
import { alertsByIds, resendAlert } from '../store/alerts';
import { listWebhooks, queueSends } from '../store/alert-channels';
import { alertsAnswer } from '../alerts/log';
import {
  ALERT_KIND_LABELS,
  ALERT_KINDS,
  kindsFor,
  setSubscription,
  subscriptionOf,
  subscriptions,
  type AlertKind,
} from '../alerts/subscriptions';

/**
 * GET /api/alerts (the notification log) and POST /api/alerts/<id>/resend ("send again"), admins; each
 * person's choice of alert emails (/api/alerts/subscription) and everyone's (/api/alerts/subscriptions, admins).
 */

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'Cache-Control': 'private, no-store' } });

export async function alertsResponse(): Promise<Response> {
  try {
    return json(await fromStore(alertsAnswer));
  } catch (error) {
    return toAppError(error).toResponse();
  }
}

export async function resendResponse(id: string, _session: PortalSession): Promise<Response> {
  try {
    // An alert's id names what it is about (a token's or delivery's name among them): any printable text.
    if (!/^[^\p{Cc}]{1,500}$/u.test(id)) throw new AppError({ code: 'NOT_FOUND', message: 'There is no such alert.' });
    const queued = await fromStore(async (db) => {
      if (!(await resendAlert(db, id, Date.now()))) return false;
      // Every webhook that takes its kind now gets it again too.
      const [alert] = await alertsByIds(db, [id]);
      const hooks = (await listWebhooks(db)).filter((h) => h.kinds.includes(alert!.kind));
      await queueSends(
        db,
        alert!,
        hooks.map((h) => h.id),
      );
      return true;
    });
    if (!queued) throw new AppError({ code: 'NOT_FOUND', message: 'There is no such alert, or it is on its way already.' });
    const resent: z.infer<typeof resendAlertSchema> = { id, status: 'pending' };
    return json(resent, 202);
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
      const body = await readJsonObject(
        request,
        MAX_BODY,
        invalidSubscription,
        () => new AppError({ code: 'PAYLOAD_TOO_LARGE', message: `A subscription is at most ${MAX_BODY} bytes.` }),
      );
      // Only the kinds the person's role may open: the others would tell them about what they may not see.
      const allowed: readonly AlertKind[] = kindsFor(session.user.role);
      const parsed = subscriptionBody.safeParse(body);
      const problems = parsed.success ? {} : subscriptionProblems(body, allowed);
      const kinds = parsed.success ? parsed.data.kinds : [];
      const closed = kinds.filter((k) => !allowed.includes(k));
      if (closed.length)
        problems.kinds = `${closed.map((k) => `"${k}"`).join(', ')} ${closed.length > 1 ? 'tell' : 'tells'} about what your role (${session.user.role}) may not open. Allowed: ${allowed.join(', ')}`;
      if (!parsed.success || Object.keys(problems).length) throw invalidSubscription(problems);
      await fromStore((db) => setSubscription(db, email, kinds, parsed.data.delivery ?? 'each'));
    }
    const mine = await fromStore((db) => subscriptionOf(db, email));
    const answer: z.infer<typeof subscriptionAnswerSchema> = {
      kinds: mine?.kinds ?? [],
      delivery: mine?.delivery ?? 'each',
      chosen: mine?.chosen ?? false,
      available: kindsFor(session.user.role).map((kind) => ({ kind, label: ALERT_KIND_LABELS[kind] })),
    };
    return json(answer);
  } catch (error) {
    return toAppError(error).toResponse();
  }
}

/** GET /api/alerts/subscriptions: everyone's (admins). */
export async function subscriptionsResponse(): Promise<Response> {
  try {
    const everyone: z.infer<typeof subscriptionsSchema> = { data: await fromStore(subscriptions) };
    return json(everyone);
  } catch (error) {
    return toAppError(error).toResponse();
  }
}

const invalidSubscription = (details: Record<string, string>) => invalidFields('subscription', details);

/** Every field of a subscription body that is not as `subscriptionBody` says, in words (`allowed`: the role's kinds). */
function subscriptionProblems(body: Record<string, unknown>, allowed: readonly AlertKind[]): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const key of Object.keys(body))
    if (key !== 'kinds' && key !== 'delivery') problems[key.slice(0, 40)] = 'is not a field of a subscription (kinds, delivery)';
  const { kinds, delivery } = body;
  if (!Array.isArray(kinds) || kinds.some((k) => typeof k !== 'string'))
    problems.kinds = `must be a list of alert kinds: ${ALERT_KINDS.join(', ')}`;
  else {
    const unknown = (kinds as string[]).filter((k) => !(ALERT_KINDS as readonly string[]).includes(k));
    if (unknown.length)
      problems.kinds = `${unknown.map((k) => `"${k.slice(0, 40)}"`).join(', ')} is not an alert kind. Allowed: ${allowed.join(', ')}`;
  }
  if (delivery !== undefined && delivery !== 'each' && delivery !== 'digest')
    problems.delivery = 'must be "each" (as alerts happen) or "digest" (one email a day)';
  return problems;
}
