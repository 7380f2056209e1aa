import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { log } from '../log';
import { processSlot } from '../process-state';
import { getStore, storeRetryDelay } from '../store';
import { appendAudit, type AuditInput } from '../store/audit';

/**
 * Audit entries the store could not take when they happened (it was away): kept by this process in order,
 * each with the time it happened, and written when the store answers again — by a retry every few seconds,
 * and before any newer entry, so this instance's entries join the chain in the order they happened. An
 * instance that stops with entries still kept writes them to a file in its data directory
 * (`audit-pending-*.jsonl`); the next start there imports them (docs/operations.md#store-outages).
 */

const PENDING = /^audit-pending-[\w.-]+\.jsonl$/;

interface Outbox {
  entries: AuditInput[];
  timer: NodeJS.Timeout | null;
  failures: number;
  flushing: Promise<void> | null;
}

/** One JSON line per entry: the file kept entries are saved in at stop. */
const toLines = (entries: AuditInput[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');

const outbox = (): Outbox => processSlot<Outbox>('auditOutbox').once(() => ({ entries: [], timer: null, failures: 0, flushing: null }));

/** Entries kept and not yet written. */
export const keptAuditEntries = (): number => outbox().entries.length;

/** Keeps an entry the store could not take, and arranges for it to be written. */
export function keepAuditEntry(input: AuditInput, problem: string): void {
  const box = outbox();
  box.entries.push(input);
  if (box.entries.length === 1)
    log('audit').warn({ problem }, 'the store is away: audit entries are kept by this instance and written when it answers');
  schedule(box);
}

/** Whether newer entries must queue behind kept ones (to keep this instance's order). */
export const auditBacklog = (): boolean => outbox().entries.length > 0;

function schedule(box: Outbox): void {
  if (box.timer || box.flushing) return;
  const wait = storeRetryDelay(box.failures);
  box.timer = setTimeout(() => {
    box.timer = null;
    void flushAuditEntries();
  }, wait);
  box.timer.unref();
}

/** Writes the kept entries in order; stops at the first the store refuses (tried again later). */
export function flushAuditEntries(): Promise<void> {
  const box = outbox();
  box.flushing ??= (async () => {
    let written = 0;
    try {
      const { db } = await getStore();
      while (box.entries.length > 0) {
        await appendAudit(db, box.entries[0]!);
        box.entries.shift();
        written += 1;
      }
      box.failures = 0;
    } catch {
      box.failures += 1;
    } finally {
      box.flushing = null;
      if (written > 0) log('audit').info({ written, kept: box.entries.length }, 'kept audit entries written');
      if (box.entries.length > 0) schedule(box);
    }
  })();
  return box.flushing;
}

/** At stop: one last try, then what is still kept goes to a file the next start imports. */
export async function saveKeptAuditEntries(dataDir: string, instance: string): Promise<void> {
  const box = outbox();
  if (box.timer) clearTimeout(box.timer);
  box.timer = null;
  if (box.entries.length === 0) return;
  await flushAuditEntries();
  if (box.entries.length === 0) return;
  const file = path.join(dataDir, `audit-pending-${instance.replace(/[^\w.-]/g, '_')}.jsonl`);
  writeFileSync(file, toLines(box.entries), { mode: 0o600, flag: 'a' });
  log('audit').error(
    { file, kept: box.entries.length },
    'stopping with audit entries the store did not take: saved for the next start to write',
  );
  box.entries = [];
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
