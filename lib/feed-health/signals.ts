import type { Kysely } from 'kysely';
import { signal } from '../jobs/signals';
import type { LicenceChange, StateEntry } from '../store/feed-health';
import type { Database } from '../store/schema';

type Db = Kysely<Database>;

/** Sports whose state changed in a judgement that was recorded; `db` is the judgement's own transaction, if it had one. */
export const healthChanged = signal<{ db: Db; changed: StateEntry[]; previous: Map<string, StateEntry>; holdMs: number }>(
  'feed-health.changed',
);

/** The licensed scope changed between two polls. */
export const licenceChanged = signal<{ db: Db; change: LicenceChange }>('licence.changed');
