import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { log } from '../log';
import { registerJob } from '../jobs/registry';

/**
 * What a process that stopped mid-way left in the spool directory: a delivery run's folder
 * (`picks-delivery-…`, lib/deliveries/run.ts) or a capture of what a file delivered (`capture-….bin`,
 * lib/history/capture.ts). Each is removed by its own process when it ends; one untouched for `idleMs`
 * belongs to no live process (a run writes as it goes, a capture is read back within minutes of its file),
 * the rule by which the store says such a file failed (lib/store/delivered.ts failAbandoned).
 */

const LEFT_BEHIND = /^(picks-delivery-.+|capture-.+\.bin)$/;
export const SPOOL_IDLE_MS = 6 * 3_600_000;

/** Removes what was left behind; the names removed. */
export async function sweepSpool(dir: string, idleMs = SPOOL_IDLE_MS, now = Date.now()): Promise<string[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? [] : Promise.reject(error)));
  const removed: string[] = [];
  for (const name of names.filter((n) => LEFT_BEHIND.test(n))) {
    const full = path.join(dir, name);
    const touched = await lastTouched(full);
    if (touched === null || now - touched < idleMs) continue;
    await rm(full, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** The latest change to a file, or to a folder and anything in it; null when it is gone meanwhile. */
async function lastTouched(file: string): Promise<number | null> {
  try {
    const info = await stat(file);
    if (!info.isDirectory()) return info.mtimeMs;
    let latest = info.mtimeMs;
    for (const entry of await readdir(file, { recursive: true }))
      latest = Math.max(latest, (await stat(path.join(file, entry)).catch(() => info)).mtimeMs);
    return latest;
  } catch {
    return null;
  }
}

/** Sweeps this machine's spool every hour, from the start: each instance its own (job registry). */
export function sweepSpoolHourly(dir: string): void {
  registerJob({
    name: 'spool-sweep',
    everyMs: 3_600_000,
    lease: 'every instance',
    run: async () => {
      const removed = await sweepSpool(dir);
      if (removed.length === 0) return 'skipped';
      log('deliveries').info({ removed }, `removed ${removed.length} spool file(s) a stopped process left behind`);
    },
  });
}
