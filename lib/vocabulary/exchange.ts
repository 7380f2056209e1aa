import { z } from 'zod';

/**
 * What was sent and answered, and a token's requests: what the token page's logs answer (lib/http/token-logs.ts), as
 * the portal API's OpenAPI document states them; lib/store/token-logs.ts keeps them.
 */

const headers = z.record(z.string(), z.string());

export const exchangeSchema = z
  .strictObject({
    request: z.strictObject({
      headers: headers.meta({ description: 'As sent: the signature, never the secret.' }),
      body: z.string().meta({ description: 'Its first 64 KB.' }),
      bytes: z.int().min(0),
    }),
    response: z
      .strictObject({
        status: z.int(),
        headers,
        body: z.string().meta({ description: 'Its first 4 KB.' }),
        bytes: z.int().min(0).meta({ description: 'Its whole size, as declared or read.' }),
      })
      .nullable()
      .meta({ description: 'Null: no answer came.' }),
  })
  .meta({ id: 'WebhookExchange' });
export type Exchange = z.infer<typeof exchangeSchema>;

export const tokenRequestsSchema = z
  .strictObject({
    data: z.array(
      z.strictObject({
        tokenId: z.string(),
        atMs: z.int(),
        method: z.string().meta({ description: 'GET, HEAD, POST (the MCP server refusing), or MCP (a tool call reading API v1).' }),
        path: z.string(),
        status: z.int(),
        records: z.int(),
        durationMs: z.int(),
        requestId: z.string(),
        prefix: z
          .string()
          .nullable()
          .meta({ description: 'The first characters of the secret it came with (a rolled token has two a while).' }),
      }),
    ),
    keptDays: z.int(),
    keptMost: z.int().meta({ description: 'At most this many of the newest requests are kept for one token.' }),
    nextBefore: z.string().nullable(),
  })
  .meta({ id: 'TokenRequests' });
