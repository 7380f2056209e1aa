import type { Kysely } from 'kysely';
import { signal } from '../jobs/signals';
import type { Database } from '../store/schema';

/** A delivery's run ended, kept in the store with its outcome (./run-end.ts). */
export const runEnded = signal<{
  db: Kysely<Database>;
  run: { delivery: string; ok: boolean; failuresBefore: number; paused: boolean; error: string | null; at: number };
}>('delivery.run-ended');
