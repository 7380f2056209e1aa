import type { Kysely } from 'kysely';
import { AppError } from '../errors';
import { changedSince, deliveredCount, type DeliveredFile } from '../store/delivered';
import type { Database } from '../store/schema';
import { fieldChanges } from './diff';
import { bodyOf } from '../vocabulary/version';
import type { z } from 'zod';
import { CORRECTION_KINDS, type changedRecordSchema, type reconciliationSchema } from './answers';

/**
 * Reconciliation: a delivered file's records against what the portal knows of them now. A record is
 * unchanged when its newest version is the one delivered; otherwise it is said how it changed.
 */

export { CORRECTION_KINDS };
export type CorrectionKind = (typeof CORRECTION_KINDS)[number];

const OWN = new Set(['status', 'result', 'settledAt', 'odds', 'line', 'publishedAt']);

/**
 * How a record changed since it was delivered: `withdrawn` (no longer delivered), `voided`, `result` (a result
 * now that differs, a first one included), `resettled` (a record delivered settled whose result or settlement
 * time changed: a re-settlement), `status`, `odds`, `line`, `edited` (any other field), and `republished` when
 * only its publication time moved.
 */
export function correctionKinds(delivered: Record<string, unknown>, now: Record<string, unknown> | null): CorrectionKind[] {
  if (now === null) return ['withdrawn'];
  const changed = new Set(fieldChanges(delivered, now).map((change) => change.field));
  const kinds: CorrectionKind[] = [];
  const settled = delivered.status === 'settled' || (delivered.result ?? null) !== null;
  if (now.status === 'void' && delivered.status !== 'void') kinds.push('voided');
  if (changed.has('result')) kinds.push('result');
  if (settled && (changed.has('result') || changed.has('settledAt'))) kinds.push('resettled');
  if (changed.has('status') && !kinds.includes('voided')) kinds.push('status');
  if (changed.has('odds')) kinds.push('odds');
  if (changed.has('line')) kinds.push('line');
  if ([...changed].some((field) => !OWN.has(field))) kinds.push('edited');
  if (kinds.length === 0 && changed.size > 0) kinds.push('republished');
  return kinds;
}

export type ChangedRecord = z.infer<typeof changedRecordSchema>;
export type Reconciliation = z.infer<typeof reconciliationSchema>;

/** Refuses, in words, a file that cannot be reconciled (yet). */
export function reconcilable(file: DeliveredFile): void {
  if (file.kept === 'pending')
    throw new AppError({
      code: 'RECONCILE_NOT_READY',
      message: 'What this file delivered is still being recorded (it takes a few seconds after the file ends). Try again shortly.',
    });
  if (file.kept === 'none')
    throw new AppError({
      code: 'RECONCILE_NOT_READY',
      message: 'This file holds no records the portal keeps: there is nothing to reconcile.',
    });
  if (file.kept === 'failed')
    throw new AppError({
      code: 'RECONCILE_NOT_READY',
      message: `What this file delivered could not be recorded (${file.error ?? 'unknown error'}), so it cannot be reconciled.`,
    });
}

/** Every changed record of a file, read in batches. */
export async function* eachChanged(db: Kysely<Database>, source: string, batch = 1_000): AsyncGenerator<ChangedRecord> {
  let after: string | null = null;
  for (;;) {
    const rows = await changedSince(db, source, after, batch);
    for (const row of rows) {
      const delivered = bodyOf(row.deliveredBody);
      const now = row.nowBody === null ? null : bodyOf(row.nowBody);
      yield { id: row.pickId, kinds: correctionKinds(delivered, now), delivered, now };
    }
    if (rows.length < batch) return;
    after = rows.at(-1)!.pickId;
  }
}

export async function reconcile(db: Kysely<Database>, file: DeliveredFile): Promise<Reconciliation> {
  reconcilable(file);
  const records = await deliveredCount(db, file.id);
  const changed: ChangedRecord[] = [];
  const byKind: Partial<Record<CorrectionKind, number>> = {};
  for await (const record of eachChanged(db, file.id)) {
    changed.push(record);
    for (const kind of record.kinds) byKind[kind] = (byKind[kind] ?? 0) + 1;
  }
  return { records, unchanged: records - changed.length, changed, byKind };
}
