import { z } from 'zod';
import { ALERT_DELIVERIES, ALERT_KINDS } from './subscriptions';
import { ALERT_STATUSES } from '../store/alerts';
import { SEND_STATUSES } from '../store/alert-channels';

/**
 * What GET and PUT /api/alerts/subscription answer: the signed-in person's choice and the kinds their role may
 * choose among (lib/http/alerts.ts builds it as this type); the portal API's OpenAPI document is made from it.
 */
const choice = {
  kinds: z.array(z.enum(ALERT_KINDS)),
  delivery: z.enum(ALERT_DELIVERIES).meta({ description: 'As alerts happen, or one email a day.' }),
  chosen: z.boolean().meta({ description: 'true: the person chose; false: their role’s default (admins every kind, others none).' }),
};

/** PUT /api/alerts/subscription: the kinds chosen (only those the person's role may open) and how they come. */
export const subscriptionBody = z
  .strictObject({
    kinds: z.array(z.enum(ALERT_KINDS)).max(ALERT_KINDS.length * 2),
    delivery: choice.delivery.optional().meta({ description: 'As alerts happen (the default), or one email a day.' }),
  })
  .meta({ id: 'AlertSubscriptionChoice' });

export const subscriptionAnswerSchema = z
  .strictObject({
    ...choice,
    available: z.array(z.strictObject({ kind: z.enum(ALERT_KINDS), label: z.string() })),
  })
  .meta({ id: 'AlertSubscription' });

/** An alert webhook as anyone sees it (./webhooks.ts `webhookView`): the URL masked, the secret only as whether there is one. */
export const alertWebhookViewSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    url: z.string().meta({ description: 'Its origin and `/…` (the path and query are secret), or the shared email address.' }),
    format: z.enum(['signed', 'chat', 'email']),
    kinds: z.array(z.string()),
    signed: z.boolean(),
    createdBy: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'AlertWebhook' });

export const alertWebhooksSchema = z.strictObject({ data: z.array(alertWebhookViewSchema) }).meta({ id: 'AlertWebhooks' });

/** GET /api/alerts/subscriptions (admins): everyone's choice, or their role's default (./subscriptions.ts `Subscription`). */
export const subscriptionSchema = z.strictObject({
  email: z.string(),
  role: z.string(),
  ...choice,
  updatedAt: z.string().nullable().meta({ description: 'When they last chose, or null.' }),
});
export const subscriptionsSchema = z.strictObject({ data: z.array(subscriptionSchema) }).meta({ id: 'AlertSubscriptions' });

/** GET /api/alerts (admins): the notification log (./log.ts `alertView`) and the latest daily digests. */
const when = z.string().nullable().meta({ description: 'ISO 8601, UTC; null: not yet.' });
/** How an alert went to one webhook. */
const webhookOutcomeSchema = z.strictObject({
  webhook: z.string().meta({ description: 'Its name (or its id and "(removed)").' }),
  status: z.enum(SEND_STATUSES),
  attempts: z.int().min(0),
  error: z.string().nullable(),
  sentAt: when,
});
export type WebhookOutcome = z.infer<typeof webhookOutcomeSchema>;

export const alertLogEntrySchema = z
  .strictObject({
    id: z.string(),
    kind: z.string().meta({ description: 'One of the alert kinds (AlertSubscription’s), kept as it was raised.' }),
    sport: z.string().meta({ description: 'What it is about: a sport, `licence`, a token’s or delivery’s name.' }),
    state: z.string(),
    side: z.string().nullable(),
    reason: z.string(),
    detail: z.string().nullable(),
    status: z.enum(ALERT_STATUSES),
    attempts: z.int().min(0),
    error: z.string().nullable(),
    recipients: z.array(z.string()),
    createdAt: z.string(),
    dueAt: z.string(),
    nextTryAt: when,
    sentAt: when,
    channel: z.literal('email'),
    webhooks: z.array(webhookOutcomeSchema),
  })
  .meta({ id: 'AlertLogEntry' });
export const alertDigestSchema = z.strictObject({
  day: z.string(),
  email: z.string(),
  alerts: z.int().min(0),
  status: z.enum(SEND_STATUSES),
  attempts: z.int().min(0),
  error: z.string().nullable(),
  sentAt: when,
});
export const alertsAnswerSchema = z
  .strictObject({ data: z.array(alertLogEntrySchema), digests: z.array(alertDigestSchema) })
  .meta({ id: 'AlertLog' });

/** POST /api/alerts/<id>/resend (202): the alert is queued again. */
export const resendAlertSchema = z.strictObject({ id: z.string(), status: z.literal('pending') }).meta({ id: 'AlertResent' });
