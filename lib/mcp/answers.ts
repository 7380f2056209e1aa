import { z } from 'zod';
import { recordHistorySchema } from '../history/answers';
import { recordSchema, requestIdSchema } from '../api-v1/shapes';
import { CONTENT } from '../vocabulary/tokens';

/**
 * What the MCP server's own tools answer (the others answer API v1's shapes: lib/api-v1/shapes.ts), as schemas: each
 * tool declares its answer's schema, and the SDK checks every structured answer against it before it leaves.
 */

export const pickWithHistorySchema = z.strictObject({
  data: recordSchema,
  history: recordHistorySchema.meta({
    description:
      'The versions the portal saw of this record, oldest first, with only the fields the token may read (a version that changed nothing it may read is left out).',
  }),
  requestId: requestIdSchema,
});

const counted = z.array(z.strictObject({ value: z.string(), records: z.int().min(0) }));

export const coverageSchema = z.strictObject({
  kind: z.enum(['picks', 'results']),
  scope: z.strictObject({
    content: z.array(z.enum(CONTENT)),
    sports: z.array(z.string()).meta({ description: 'Empty: every sport of the licence.' }),
    leagues: z.array(z.string()).meta({ description: 'Empty: every league of those sports.' }),
    from: z.string().nullable(),
    to: z.string().nullable(),
  }),
  records: z.int().min(0).meta({ description: 'Records of this kind the token may read, as the portal’s index holds them.' }),
  bySport: counted,
  byLeague: counted,
  byStatus: counted,
  index: z.strictObject({
    followedAt: z
      .string()
      .nullable()
      .meta({ description: 'When the index last followed the record history (null: not yet built: nothing is counted).' }),
  }),
});
export type Coverage = z.infer<typeof coverageSchema>;
