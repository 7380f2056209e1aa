import { z } from 'zod';
import { ALERT_KINDS } from './subscriptions';

/**
 * What GET and PUT /api/alerts/subscription answer: the signed-in person's choice and the kinds their role may
 * choose among (./responses.ts builds it as this type); the portal API's OpenAPI document is made from it.
 */
export const subscriptionAnswerSchema = z
  .strictObject({
    kinds: z.array(z.enum(ALERT_KINDS)),
    delivery: z.enum(['each', 'digest']).meta({ description: 'As alerts happen, or one email a day.' }),
    chosen: z.boolean().meta({ description: 'Whether the person has chosen (until then: admins every kind, others none).' }),
    available: z.array(z.strictObject({ kind: z.enum(ALERT_KINDS), label: z.string() })),
  })
  .meta({ id: 'AlertSubscription' });
