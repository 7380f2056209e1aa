/** What an API token may read (lib/tokens/scope.ts checks it; the store keeps it with the token). */

export const CONTENT = ['picks', 'results'] as const;
export type Content = (typeof CONTENT)[number];

export interface TokenScope {
  content: Content[];
  sports: string[];
  leagues: string[];
  /** Inclusive lower bound of the event date (ISO 8601 UTC), or null. */
  from: string | null;
  /** Exclusive upper bound, or null. */
  to: string | null;
}
