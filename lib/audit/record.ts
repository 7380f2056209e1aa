import { metrics } from '../metrics';
import { getStore } from '../store';
import { appendAudit, type AuditEntry, type AuditInput } from '../store/audit';

/**
 * What the portal records in the audit trail, and how: every sign-in (either way), sign-out, user change
 * and export, by the portal, the command line (`cli`) or a delivery. A record that cannot be written is
 * said loudly on stderr; exports check the store before their first byte (lib/export/stream.ts), so an
 * export is never sent unrecorded because the store was known to be away.
 */

export type AuditAction =
  | 'sign-in'
  | 'sign-out'
  | 'export.picks'
  | 'export.results'
  | 'export.changes'
  | 'user.add'
  | 'user.role'
  | 'user.disable'
  | 'user.enable'
  | 'user.password'
  | 'user.remove'
  | 'settings.change'
  | 'delivery.add'
  | 'delivery.change'
  | 'delivery.remove'
  | 'delivery.run'
  | 'feed.cadence'
  | 'alerts.webhook.add'
  | 'alerts.webhook.change'
  | 'alerts.webhook.remove';

export type AuditRecord = Partial<Omit<AuditInput, 'actor' | 'action' | 'outcome'>> &
  Pick<AuditInput, 'actor' | 'outcome'> & { action: AuditAction };

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
  try {
    return await appendAudit((await getStore()).db, input);
  } catch (error) {
    console.error(`[audit] NOT RECORDED (${(error as Error).message}): ${JSON.stringify({ ...input, at: new Date().toISOString() })}`);
    return null;
  }
}

/** Exports, delivery runs and sign-ins are counted as they are recorded: the audit trail sees each of them once. */
function countInMetrics(input: AuditInput): void {
  const m = metrics();
  if (input.action.startsWith('export.')) {
    const kind = input.action.slice('export.'.length);
    m.exports.inc({ kind, outcome: input.outcome });
    if (input.records) m.exportRecords.inc({ kind }, input.records);
    if (input.bytes) m.exportBytes.inc({ kind }, input.bytes);
  } else if (input.action === 'delivery.run') m.deliveryRuns.inc({ outcome: input.outcome });
  else if (input.action === 'sign-in') m.signIns.inc({ outcome: input.outcome });
}
