import type { Kysely } from 'kysely';
import { verifyAudit } from '../store/audit';
import { queueAlerts } from '../store/alerts';
import { takeLock } from '../store/locks';
import { readMeta, writeMeta } from '../store/meta';
import type { Database } from '../store/schema';

type Db = Kysely<Database>;
const CHECKED = 'alerts.audit-checked-ms';
const FAILING = 'alerts.audit-failing';

/** A check of the whole trail: its problems, in words (none: it holds). */
export type TrailCheck = (db: Db) => Promise<string[]>;

/** The hash chain alone: its first entry that does not fit. */
export const chainCheck: TrailCheck = async (db) => {
  const verdict = await verifyAudit(db);
  return verdict.ok ? [] : [`Entry ${verdict.seq}: ${verdict.problem}`];
};

/**
 * The audit trail checked every AUDIT_VERIFY_HOURS by one instance (the one that claims the turn): the chain, and
 * in the portal its checkpoints too (lib/audit/sealing.ts `sealedCheck`). A check that fails is an `audit.failed`
 * alert, once per distinct failure, and a later clean check clears it.
 */
export async function checkAuditTrail(
  db: Db,
  options: { now: number; everyMs: number; check?: TrailCheck },
): Promise<'skipped' | 'ok' | 'failed'> {
  const { now } = options;
  if (options.everyMs <= 0) return 'skipped';
  const due = (last: string | undefined) => now - Number(last ?? 0) >= options.everyMs;
  // Read first: every instance asks at every alert check, and the lock (a write) is worth taking only when a turn is due.
  if (!due(await readMeta(db, CHECKED))) return 'skipped';
  const mine = await db.transaction().execute(async (tx) => {
    await takeLock(tx, 'watchdog');
    if (!due(await readMeta(tx, CHECKED))) return false;
    await writeMeta(tx, CHECKED, String(now));
    return true;
  });
  if (!mine) return 'skipped';
  const problems = await (options.check ?? chainCheck)(db);
  const before = (await readMeta(db, FAILING)) ?? '';
  if (problems.length === 0) {
    if (before) await writeMeta(db, FAILING, '');
    return 'ok';
  }
  const problem = problems.join('; ');
  if (problem !== before) {
    await writeMeta(db, FAILING, problem);
    await queueAlerts(db, [
      {
        kind: 'audit.failed',
        sport: 'audit trail',
        state: 'failed',
        side: 'portal',
        reason: `The audit trail failed its check: ${problem}. Run npm run audit -- verify and look into who can write to the store`,
        detail: null,
        createdMs: now,
        dueMs: now,
      },
    ]);
  }
  return 'failed';
}
