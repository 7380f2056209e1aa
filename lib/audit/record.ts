import type { AUDIT_ACTIONS } from './query';
import { metrics } from '../metrics';
import { processSlot } from '../process-state';
import { getStore } from '../store';
import { appendAudit, type AuditEntry, type AuditInput } from '../store/audit';
import { storeOrKeep } from '../jobs/store-retry';
import { AUDIT_LANE } from './outbox';

/**
 * What the portal records in the audit trail, and how: every sign-in (either way), sign-out, user change
 * and export, by the portal, the command line (`cli`) or a delivery. A record the store cannot take is kept
 * by this process and written when it answers again (lib/audit/outbox.ts); exports check the store before
 * their first byte (lib/export/stream.ts), so an export does not start while the store is known to be away.
 */

/** What an entry records: the one list is the audit filter's (./query.ts). */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditRecord = Partial<Omit<AuditInput, 'actor' | 'action' | 'outcome'>> &
  Pick<AuditInput, 'actor' | 'outcome'> & { action: AuditAction };

/** Who hears of each entry this process appends (lib/audit/sealing.ts, to seal at every AUDIT_CHECKPOINT_EVERY). */
const appendedSlot = processSlot<(seq: number) => void>('auditAppended');
export const whenAuditAppended = (listener: ((seq: number) => void) | undefined): void => appendedSlot.set(listener);

export async function recordAudit(record: AuditRecord): Promise<AuditEntry | null> {
  const input: AuditInput = {
    role: null,
    target: null,
    filters: null,
    errorCode: null,
    records: null,
    bytes: null,
    sha256: null,
    durationMs: null,
    requestIds: [],
    address: null,
    licence: null,
    walk: null,
    ...record,
  };
  countInMetrics(input);
  // The time it happened, whenever the store takes it.
  const entry = { ...input, at: input.at ?? new Date().toISOString() };
  // Written now, unless the store is away or earlier entries are still kept: then kept, in order (lib/audit/outbox.ts).
  const now = await storeOrKeep('an audit entry', async () => appendAudit((await getStore()).db, entry), {
    lane: AUDIT_LANE,
    payload: entry,
  });
  if (!now.written) {
    void now.later.catch(() => undefined); // saved to a file at stop if still kept then
    return null;
  }
  appendedSlot.get()?.(now.value.seq);
  return now.value;
}

/** Exports, delivery runs and sign-ins are counted as they are recorded: the audit trail sees each of them once. */
function countInMetrics(input: AuditInput): void {
  const m = metrics();
  if (input.action.startsWith('export.')) {
    const kind = input.action.slice('export.'.length);
    m.exports.inc({ kind, outcome: input.outcome });
    if (input.records) m.exportRecords.inc({ kind }, input.records);
    if (input.bytes) m.exportBytes.inc({ kind }, input.bytes);
  } else if (input.action === 'delivery.run') {
    m.deliveryRuns.inc({ outcome: input.outcome });
    if (input.durationMs !== null) m.deliveryRunSeconds.observe({ outcome: input.outcome }, input.durationMs / 1000);
  } else if (input.action === 'sign-in') m.signIns.inc({ outcome: input.errorCode?.startsWith('LIMITED_') ? 'throttled' : input.outcome });
}
