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

/** GET /api/proof/keys: the JWK Set (RFC 7517) of every key the portal has signed with, retired ones too. */
export const jwkSetSchema = z
  .strictObject({
    keys: z.array(
      z.looseObject({
        kty: z.string(),
        kid: z.string(),
        createdAt: z.string(),
        retiredAt: z.string().optional(),
        compromisedAt: z
          .string()
          .optional()
          .meta({ description: 'When the key was marked compromised: what it signed after is not to be trusted.' }),
      }),
    ),
  })
  .meta({ id: 'JwkSet' });
