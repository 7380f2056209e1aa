import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { log } from '../log';
import { dropLane, flushKept, keptIn } from '../jobs/store-retry';
import { getStore } from '../store';
import { appendAudit, type AuditInput } from '../store/audit';

/**
 * Audit entries the store could not take when they happened (it was away): kept by this process in order,
 * each with the time it happened, and written when the store answers again — by a retry every few seconds,
 * and before any newer entry, so this instance's entries join the chain in the order they happened. An
 * instance that stops with entries still kept writes them to a file in its data directory
 * (`audit-pending-*.jsonl`); the next start there imports them (docs/operations.md#store-outages).
 */

const PENDING = /^audit-pending-[\w.-]+\.jsonl$/;

/** One JSON line per entry: the file kept entries are saved in at stop. */
const toLines = (entries: AuditInput[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');

/** The audit trail's lane of the one retry queue (lib/jobs/store-retry.ts). */
export const AUDIT_LANE = 'audit';

/** Entries kept and not yet written. */
export const keptAuditEntries = (): number => keptIn(AUDIT_LANE).length;

/** Writes what is kept now (the queue's job does so by itself, after its delay). */
export const flushAuditEntries = (): Promise<void> => flushKept();

/** At stop: one last try, then what is still kept goes to a file the next start imports. */
export async function saveKeptAuditEntries(dataDir: string, instance: string): Promise<void> {
  if (keptAuditEntries() === 0) return;
  await flushKept();
  if (keptAuditEntries() === 0) return;
  const entries = dropLane(AUDIT_LANE, new Error('saved for the next start')) as AuditInput[];
  const file = path.join(dataDir, `audit-pending-${instance.replace(/[^\w.-]/g, '_')}.jsonl`);
  writeFileSync(file, toLines(entries), { mode: 0o600, flag: 'a' });
  log('audit').error(
    { file, kept: entries.length },
    'stopping with audit entries the store did not take: saved for the next start to write',
  );
}

/** At start: the entries an earlier instance saved at stop are written (in their order), then their files removed. */
export async function importSavedAuditEntries(dataDir: string): Promise<number> {
  if (!existsSync(dataDir)) return 0;
  let imported = 0;
  const { db } = await getStore();
  for (const name of readdirSync(dataDir)
    .filter((n) => PENDING.test(n))
    .sort()) {
    const file = path.join(dataDir, name);
    // Taken first, so that two instances starting on one data directory do not both import it.
    const taken = `${file}.importing-${process.pid}`;
    try {
      renameSync(file, taken);
    } catch {
      continue;
    }
    const entries = readFileSync(taken, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditInput);
    let done = 0;
    try {
      for (const entry of entries) {
        await appendAudit(db, entry);
        done += 1;
      }
    } finally {
      // What was not written goes back under its own name, for the next try.
      if (done < entries.length) writeFileSync(file, toLines(entries.slice(done)), { mode: 0o600 });
      rmSync(taken);
    }
    imported += entries.length;
    log('audit').info({ file, written: entries.length }, 'audit entries saved by an earlier stop written');
  }
  return imported;
}
