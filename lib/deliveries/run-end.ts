import type { FileProof } from '../proof/attest';
import 'server-only';
import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/record';
import type { AppError } from '../errors';
import type { WalkSummary } from '../store/audit';
import { finishRun, recordOutcome, updateDelivery, type Delivery } from '../store/deliveries';
import type { TableCounts } from '../store/delivery-runs';
import type { Database } from '../store/schema';
import { untilStored } from './kept';
import { runEnded } from './signals';

/** How a run ended: its file placed, or why not. */
export type RunEnd =
  | { file: string; sha256: string; licence: string | null; until: string | null; table?: TableCounts }
  | { failure: AppError; message: string };

export interface RunFacts {
  startedMs: number;
  records: number;
  bytes: number;
  resolved: Record<string, string>;
  walk: WalkSummary | null;
  proof?: FileProof | null;
}

/**
 * How the run ended, recorded four ways: its row in the run history, the count of failures in a row (three
 * pause the delivery), its alert and the audit trail. While the store is away each is kept by this instance
 * and written when it answers (lib/deliveries/kept.ts, lib/audit/outbox.ts). Returns whether the delivery paused.
 */
export async function recordRunEnd(
  db: Kysely<Database>,
  delivery: Delivery,
  runId: string,
  facts: RunFacts,
  result: RunEnd,
): Promise<boolean> {
  const finishedMs = Date.now();
  const ok = 'file' in result;
  const { startedMs, records, bytes } = facts;
  await untilStored(
    'the run’s outcome',
    async () => {
      await finishRun(db, runId, {
        outcome: ok ? 'complete' : 'failed',
        records,
        bytes,
        sha256: ok ? result.sha256 : null,
        file: ok ? result.file : null,
        error: ok ? null : `${result.failure.code}: ${result.message}`.slice(0, 1000),
        finishedMs,
        durationMs: finishedMs - startedMs,
        outsideLicence: ok && facts.proof?.licence.result === 'outside' ? facts.proof.licence.outside.count : null,
        table: ok ? (result.table ?? null) : null,
      });
      if (ok && result.until) await updateDelivery(db, delivery.id, { changesUntil: result.until });
    },
    runId,
  );
  const { paused } = await untilStored(
    'the delivery’s count of failures',
    () => recordOutcome(db, delivery.id, ok, ok ? null : result.message),
    runId,
  );
  await untilStored(
    'the run’s alert',
    () =>
      runEnded.publish({
        db,
        run: {
          delivery: delivery.name,
          ok,
          failuresBefore: delivery.failures,
          paused,
          error: ok ? null : `${result.failure.code}: ${result.message}`,
          at: finishedMs,
        },
      }),
    runId,
  );
  await recordAudit({
    actor: `delivery:${delivery.name}`,
    action: 'delivery.run',
    target: ok ? result.file : null,
    filters: facts.resolved,
    outcome: ok ? 'complete' : 'failed',
    errorCode: ok ? null : result.failure.code,
    records,
    bytes,
    sha256: ok ? result.sha256 : null,
    durationMs: finishedMs - startedMs,
    licence: ok ? result.licence : null,
    walk: facts.walk,
    proof: facts.proof ?? null,
  });
  return paused;
}
