import 'server-only';
import type { ExportProgress } from '../audit/export-trail';
import { getConfig } from '../config';
import { spoolDirOf } from '../config/spool';
import { log } from '../log';
import type { PickList } from '../picks-api';
import type { Kysely } from 'kysely';
import { getStore } from '../store';
import type { Database } from '../store/schema';
import { openDeliveredFile, updateDeliveredFile } from '../store/delivered';
import { startCapture } from './capture';

/**
 * Keeps which version of each record an export or a delivery run delivered (lib/history/capture.ts), and
 * the file's entry in `delivered_files` that reconciliation reads: pending while the spool is read back,
 * then kept with its count, or failed with why, or none when the file did not complete.
 */

const spoolDir = () => spoolDirOf(getConfig());

const storeDb = async () => (await getStore()).db;

export interface Keeping {
  page(page: PickList): Promise<void> | void;
  finish(complete: boolean): void;
  /** Settles once what the file delivered is kept (or could not be): its entry says which. */
  readonly done: Promise<void>;
}

/** Starts keeping a file's records; `source` names it (exp_… or run_…). */
export async function keepDelivered(
  file: { id: string; kind: 'export' | 'run'; actor: string; deliveryId?: string | null },
  db: () => Promise<Kysely<Database>> = storeDb,
): Promise<Keeping> {
  await openDeliveredFile(await db(), {
    id: file.id,
    kind: file.kind,
    actor: file.actor,
    deliveryId: file.deliveryId ?? null,
    atMs: Date.now(),
  });
  const capture = startCapture(
    db,
    { id: file.id, by: file.kind === 'run' ? 'delivery' : 'export', deliveryId: file.deliveryId },
    spoolDir(),
  );
  let settled: Promise<void> = Promise.resolve();
  let finished = false;
  return {
    page: (page) => capture.page(page),
    finish(complete) {
      if (finished) return;
      finished = true;
      capture.finish(complete);
      settled = capture.kept
        .then(
          async (records) => updateDeliveredFile(await db(), file.id, complete ? { kept: 'kept', records } : { kept: 'none' }),
          async (error: unknown) => {
            log('history').warn({ err: error, file: file.id }, 'what a file delivered could not be kept; it cannot be reconciled');
            await updateDeliveredFile(await db(), file.id, { kept: 'failed', error: (error as Error).message.slice(0, 500) });
          },
        )
        // The store may be gone by then (the process stopping): the file stays pending, and is said so when asked.
        .catch(() => undefined);
    },
    get done() {
      return settled;
    },
  };
}

/** An export's records kept: its id is its X-Export-Id; its audit entry's seq is linked when the entry is written. */
export async function keepExport(progress: ExportProgress, actor: string): Promise<Keeping> {
  const keeping = await keepDelivered({ id: progress.exportId, kind: 'export', actor });
  progress.onEnd = (outcome) => keeping.finish(outcome === 'complete');
  return keeping;
}
