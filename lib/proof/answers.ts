import { z } from 'zod';

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
