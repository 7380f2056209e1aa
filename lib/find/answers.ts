import { z } from 'zod';

/**
 * What GET /api/find answers (lib/find/find.ts) and the command palette shows: groups of things a person may open,
 * found by the words typed. The portal API's OpenAPI document is made from the same schema.
 */

export const FIND_KINDS = ['record', 'delivery', 'token', 'webhook', 'person', 'audit'] as const;
export type FindKind = (typeof FIND_KINDS)[number];

const foundSchema = z.strictObject({
  label: z.string(),
  detail: z.string(),
  href: z.string().meta({ description: 'The portal page that shows it (a path).' }),
});

const groupSchema = z.strictObject({
  kind: z.enum(FIND_KINDS),
  label: z.string(),
  items: z.array(foundSchema),
  problem: z.string().optional().meta({ description: 'Why this group could not be searched now (the others still answer).' }),
});

export const findAnswerSchema = z
  .strictObject({
    q: z.string(),
    groups: z.array(groupSchema).meta({ description: 'Only groups with something found, and only those the role may open.' }),
  })
  .meta({ id: 'Found' });

export type Found = z.infer<typeof foundSchema>;
export type FindGroup = z.infer<typeof groupSchema>;
export type FindAnswer = z.infer<typeof findAnswerSchema>;
