import { z } from 'zod';

/**
 * The body of every error the portal's own API answers (`{ "error": … }`, lib/errors.ts builds it as this type),
 * and what its OpenAPI document says of it (lib/openapi/portal.ts): one schema for both.
 */
export const appErrorJsonSchema = z
  .strictObject({
    status: z.int(),
    code: z.string().meta({ description: 'Stable: what a client branches on (VALIDATION codes end in INVALID_…).' }),
    message: z.string().meta({ description: 'Safe to show: a refused body or query names every wrong field, with why.' }),
    /** The upstream's request id (spec §7), when the error came from it. */
    requestId: z.string().nullable(),
    /** The portal's id of the request that met the error (also its X-Request-Id header and log line). */
    portalRequestId: z.string().optional(),
    retryAfterSeconds: z.number().nullable(),
    /** The code the upstream itself sent, when it differs from ours (e.g. a 400 with its own code). */
    upstreamCode: z.string().optional(),
    /** Each wrong field and its problem (a refused body or query), or the filter values that were sent. */
    details: z.record(z.string(), z.string()).optional(),
    /** Server settings that stand in the way, apart from the fields: each named, with the document that explains it. */
    settings: z
      .array(z.strictObject({ setting: z.string(), problem: z.string(), doc: z.string() }))
      .optional()
      .meta({ description: 'Not fields of the request: what the operator must set on the server, and where it is explained.' }),
  })
  .meta({ id: 'PortalErrorDetail' });

export const portalErrorSchema = z
  .strictObject({ error: appErrorJsonSchema })
  .meta({ id: 'PortalError', description: 'Every error of the portal’s API.' });
