import { z } from 'zod';

/** What an API token may read (lib/tokens/scope.ts checks it; the store keeps it with the token). */

/** `changes`: the change feed pushed as events (GET /api/v1/events), its records read as `picks` and `results` allow. */
export const CONTENT = ['picks', 'results', 'changes'] as const;

/** The types of API v1's events (lib/events/shape.ts), which a consumer webhook chooses among. */
export const EVENT_TYPES = ['pick.published', 'pick.changed', 'pick.settled', 'pick.withdrawn', 'pick.restored'] as const;
export type Content = (typeof CONTENT)[number];

export const CONTENT_LABELS: Record<Content, string> = { picks: 'picks', results: 'results', changes: 'changes (events)' };

/** What a token may read: its content, sports, leagues and event dates, as the store keeps it and the API answers it. */
export const tokenScopeSchema = z.strictObject({
  content: z.array(z.enum(CONTENT)),
  sports: z.array(z.string()),
  leagues: z.array(z.string()),
  from: z.string().nullable().meta({ description: 'Inclusive lower bound of the event date (ISO 8601 UTC), or null.' }),
  to: z.string().nullable().meta({ description: 'Exclusive upper bound, or null.' }),
});
export type TokenScope = z.infer<typeof tokenScopeSchema>;
