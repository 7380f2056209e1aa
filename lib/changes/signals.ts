import type { Kysely } from 'kysely';
import { signal } from '../jobs/signals';
import type { Database } from '../store/schema';

/** Results a poll found changed after their first settlement, among the records already delivered. */
export const resettled = signal<{
  db: Kysely<Database>;
  found: { id: string; sport: string | null; was: string; now: string | null }[];
  at: number;
}>('results.resettled');
