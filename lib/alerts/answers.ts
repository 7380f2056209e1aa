import { z } from 'zod';
import { ALERT_KINDS } from './subscriptions';

/**
 * What GET and PUT /api/alerts/subscription answer: the signed-in person's choice and the kinds their role may
 * choose among (./responses.ts builds it as this type); the portal API's OpenAPI document is made from it.
 */
const choice = {
  kinds: z.array(z.enum(ALERT_KINDS)),
  delivery: z.enum(['each', 'digest']).meta({ description: 'As alerts happen, or one email a day.' }),
  chosen: z.boolean().meta({ description: 'true: the person chose; false: their role’s default (admins every kind, others none).' }),
};

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
