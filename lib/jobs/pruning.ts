import type { Kysely } from 'kysely';
import { log } from '../log';
import { pruneRetained, type Retention } from '../store/maintenance';
import type { Database } from '../store/schema';
import { registerJob } from './registry';

/**
 * Pruning, every hour from the start, by one instance at a time (a lease in the store): rows that have run
 * out (sign-in counts, revoked sessions, slot leases), and what is past its retention (audit trail, changes,
 * record history, quiet instances' job rows). A failed pass is logged by the registry and tried an hour on.
 */
export function pruneHourly(db: Kysely<Database>, retention: Retention, sealing?: Parameters<typeof pruneRetained>[2]): void {
  registerJob({
    name: 'pruning',
    everyMs: 3_600_000,
    lease: 'one instance',
    run: async () => {
      const pruned = await pruneRetained(db, retention, sealing);
      const any = pruned.audit + pruned.changes + pruned.versions + pruned.jobs + pruned.webhookAttempts + pruned.checkpoints > 0;
      log('store')[any ? 'info' : 'debug'](pruned, 'pruned what is past its retention');
    },
  });
}
