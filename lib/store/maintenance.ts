import type { Kysely } from 'kysely';
import { pruneAudit } from './audit';
import { pruneChanges } from './changes';
import { failAbandoned } from './delivered';
import { pruneHistory } from './history-read';
import type { Database } from './schema';
import { log, workId } from '../log';

/**
 * Rows that have run out: sign-in counts an hour past their expiry, revoked sessions and slot leases past theirs;
 * and files whose read-back was abandoned (said failed).
 */
export async function pruneExpired(db: Kysely<Database>, now = Date.now()): Promise<void> {
  await db
    .deleteFrom('rate_limits')
    .where('expire', '<', now - 3_600_000)
    .execute();
  await db.deleteFrom('revoked_sessions').where('expires_at', '<=', now).execute();
  await db.deleteFrom('walk_slots').where('expires_at', '<=', now).execute();
  // A file still "being recorded" six hours on will never be: its instance stopped (lib/history/keep.ts).
  await failAbandoned(db, now - 6 * 3_600_000);
}

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

/** Prunes once now and then every hour, in the background of a server process; a failed round is retried next hour. */
export function pruneHourly(
  db: Kysely<Database>,
  retention: { auditDays: number; changesDays: number; historyDays?: number },
  sealing?: () => { sealCut: Parameters<typeof pruneAudit>[2]; kept: () => Promise<void> },
): void {
  const round = () => {
    const pass = log('store', { prune: workId('prune') });
    // The audit trail's new start is sealed by a signed checkpoint in the pruning's transaction (lib/audit/sealing.ts).
    const seal = sealing?.();
    const audit = pruneAudit(db, daysAgo(retention.auditDays), seal?.sealCut).then(async (removed) => {
      if (removed > 0) await seal?.kept();
      return removed;
    });
    const history = retention.historyDays ? pruneHistory(db, Date.now() - retention.historyDays * 86_400_000) : Promise.resolve(0);
    void Promise.all([pruneExpired(db), audit, pruneChanges(db, daysAgo(retention.changesDays)), history])
      .then(([, audit, changes, versions]) =>
        pass[audit + changes + versions > 0 ? 'info' : 'debug']({ audit, changes, versions }, 'pruned what is past its retention'),
      )
      .catch((error: unknown) => pass.warn({ err: error }, 'pruning failed; it is tried again in an hour'));
  };
  round();
  setInterval(round, 3_600_000).unref();
}
