import { z } from 'zod';

/**
 * Small answers of the portal's API that start something (each built as its type where it is answered): the
 * portal API's OpenAPI document is made from the same schemas.
 */

/** POST /api/changes/poll (202; lib/changes/poller.ts `PollAsked`): `since` is reached by GET /api/changes' lastCompletePollAt when it ended. */
export const pollAnswerSchema = z
  .strictObject({ poll: z.enum(['started', 'running', 'requested']), since: z.string() })
  .meta({ id: 'PollAsked' });

/** POST /api/alerts/<id>/resend (202): the alert is queued again. */
export const resendAlertSchema = z.strictObject({ id: z.string(), status: z.literal('pending') }).meta({ id: 'AlertResent' });
