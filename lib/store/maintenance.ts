import type { Kysely } from 'kysely';
import { pruneAudit } from './audit';
import { pruneChanges } from './changes';
import { failAbandoned } from './delivered';
import { pruneHistory } from './history-read';
import type { Database } from './schema';
import { pruneJobRuns } from './jobs';
import { pruneWebhookAttempts } from './token-webhooks';
import { capTokenRequests, pruneTokenRequests, TOKEN_REQUESTS_DAYS } from './token-logs';
import { pruneCheckpoints } from './events';

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

/** How long a consumer webhook's attempts are kept. */
export const WEBHOOK_ATTEMPTS_DAYS = 30;
/** How long an event stream's signed checkpoints are kept: a consumer checks what it saved well within that. */
export const CHECKPOINT_DAYS = 90;

export interface Retention {
  auditDays: number;
  changesDays: number;
  historyDays?: number;
}

/**
 * One pruning pass: what has run out, and what is past its retention. The audit trail's new start is sealed by
 * a signed checkpoint in the pruning's transaction (`sealing`, lib/audit/sealing.ts), its file written after.
 */
export async function pruneRetained(
  db: Kysely<Database>,
  retention: Retention,
  sealing?: () => { sealCut: Parameters<typeof pruneAudit>[2]; kept: () => Promise<void> },
): Promise<{
  audit: number;
  changes: number;
  versions: number;
  jobs: number;
  webhookAttempts: number;
  checkpoints: number;
  tokenRequests: number;
}> {
  const seal = sealing?.();
  const audit = pruneAudit(db, daysAgo(retention.auditDays), seal?.sealCut).then(async (removed) => {
    if (removed > 0) await seal?.kept();
    return removed;
  });
  const history = retention.historyDays ? pruneHistory(db, Date.now() - retention.historyDays * 86_400_000) : Promise.resolve(0);
  // The job rows of instances not heard from in a week (lib/jobs/registry.ts).
  const jobs = pruneJobRuns(db, Date.now() - 7 * 86_400_000);
  // Consumer webhooks' attempts, a month of them (lib/webhooks/).
  const attempts = pruneWebhookAttempts(db, Date.now() - WEBHOOK_ATTEMPTS_DAYS * 86_400_000);
  const checkpoints = pruneCheckpoints(db, Date.now() - CHECKPOINT_DAYS * 86_400_000);
  // API tokens' request logs, a week of them and at most TOKEN_REQUESTS_KEPT a token (lib/tokens/request-log.ts).
  const requests = pruneTokenRequests(db, Date.now() - TOKEN_REQUESTS_DAYS * 86_400_000).then(
    async (old) => old + (await capTokenRequests(db)),
  );
  const [, audited, changes, versions, gone, attempted, checked, logged] = await Promise.all([
    pruneExpired(db),
    audit,
    pruneChanges(db, daysAgo(retention.changesDays)),
    history,
    jobs,
    attempts,
    checkpoints,
    requests,
  ]);
  return { audit: audited, changes, versions, jobs: gone, webhookAttempts: attempted, checkpoints: checked, tokenRequests: logged };
}
