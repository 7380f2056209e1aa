import { z } from 'zod';

/**
 * What the health probes answer, with 200 and with 503 alike (lib/http/health.ts builds them as these types): the
 * portal API's OpenAPI document is made from the same schemas. Nothing private: no key, no address.
 */

export const healthSchema = z
  .strictObject({
    status: z.enum(['ok', 'unavailable', 'draining']),
    store: z.enum(['ok', 'unreachable']),
    upstream: z.enum(['ok', 'throttled', 'unreachable']).meta({ description: 'Reported only: every instance shares the upstream.' }),
  })
  .meta({ id: 'Health' });

export const liveSchema = z.strictObject({ status: z.literal('live') }).meta({ id: 'Live' });

export const readySchema = z
  .strictObject({
    status: z.enum(['ready', 'unavailable', 'draining']),
    store: z.enum(['ok', 'unreachable']).optional().meta({ description: 'Not said while draining.' }),
  })
  .meta({ id: 'Ready' });
