import { z } from 'zod';

/**
 * A consumer webhook and its attempts as the portal's API answers them (lib/webhooks/view.ts: `EndpointView` and
 * `AttemptView` are these types; the store's trigger and outcome are these enums): the URL masked, the secret never
 * but in the answer that sets it. The portal API's OpenAPI document is made from the same schemas.
 */

export const ATTEMPT_TRIGGERS = ['delivery', 'resend', 'test'] as const;
export const ATTEMPT_OUTCOMES = ['delivered', 'failed', 'gave up'] as const;

export const attemptViewSchema = z
  .strictObject({
    id: z.string(),
    messageId: z.string().meta({ description: 'The Standard Webhooks `webhook-id` sent.' }),
    seq: z.int().nullable().meta({ description: 'The event’s number; null for a test event.' }),
    type: z.string(),
    trigger: z.enum(ATTEMPT_TRIGGERS),
    outcome: z.enum(ATTEMPT_OUTCOMES),
    code: z.int().nullable().meta({ description: 'The receiver’s HTTP status; null when none came.' }),
    problem: z.string().nullable(),
    at: z.string(),
    durationMs: z.number(),
  })
  .meta({ id: 'WebhookAttempt' });

export const endpointViewSchema = z
  .strictObject({
    id: z.string(),
    tokenId: z.string(),
    url: z.string().meta({ description: 'Its origin and `/…`: the path and query are kept secret.' }),
    kinds: z.array(z.string()),
    state: z.enum(['delivering', 'failing', 'disabled', 'paused', 'unconfirmed']),
    why: z.string().nullable().meta({ description: 'Why it is failing, disabled, paused or unconfirmed (null when delivering).' }),
    wholeUrl: z
      .string()
      .nullable()
      .meta({ description: 'The whole URL, to the token’s owner alone, while the webhook waits for their confirmation; else null.' }),
    deliveredUpTo: z.int().meta({ description: 'The last event it was given (or passed over): it receives what comes after.' }),
    behind: z.int().meta({ description: 'Events of the portal’s feed after that number (an upper bound of what it is owed).' }),
    failingSince: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    createdBy: z.string(),
    createdAt: z.string(),
    confirmedBy: z.string().meta({ description: 'Who set it up or last confirmed it: it sends for its token’s owner only.' }),
    updatedAt: z.string(),
    attempts: z.array(attemptViewSchema),
  })
  .meta({ id: 'Webhook' });

/** What adding or changing one answers: the secret when this request set one (shown this once). */
export const endpointSavedSchema = endpointViewSchema
  .extend({
    secret: z
      .string()
      .nullable()
      .meta({ description: 'The signing secret (`whsec_…`) when the portal made it in this request (shown once); else null.' }),
  })
  .meta({ id: 'WebhookSaved' });

export const endpointsAnswerSchema = z.strictObject({ data: z.array(endpointViewSchema) }).meta({ id: 'Webhooks' });
export const attemptsAnswerSchema = z.strictObject({ data: z.array(attemptViewSchema) }).meta({ id: 'WebhookAttempts' });
export const attemptAnswerSchema = z.strictObject({ attempt: attemptViewSchema }).meta({ id: 'WebhookAttemptMade' });
export const resendAnswerSchema = z
  .union([
    attemptAnswerSchema,
    z.strictObject({ resending: z.strictObject({ after: z.int(), upTo: z.int() }), webhook: endpointViewSchema }),
  ])
  .meta({ id: 'WebhookResend' });
