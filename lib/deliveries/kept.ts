import 'server-only';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { log } from '../log';
import { processSlot } from '../process-state';
import { graceEnded, isDraining } from '../draining';
import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/record';
import { untilStored as keepUntilStored } from '../jobs/store-retry';
import { finishRun, recordOutcome, type Delivery } from '../store/deliveries';
import type { Run } from '../store/delivery-runs';
import type { Database } from '../store/schema';
import { folderProblem } from './destinations';

/**
 * A run's outcome when the store is away (docs/operations.md#store-outages): kept by the instance that made
 * it and written when the store answers again, its lease renewed meanwhile, so the run is neither taken for
 * crashed nor retried; and, after a crash between placing a file and recording it, the placed file found by
 * its manifest, so the run is recorded complete instead of delivered twice.
 */

/** Runs this process is running: its own scheduler never takes them for crashed, whatever their lease says. */
export function runningHere(): Set<string> {
  return processSlot<Set<string>>('runningRuns').once(() => new Set());
}

/**
 * `write` until the store takes it, after what this run kept before it (lib/jobs/store-retry.ts). Gives up only
 * when the instance stops and its grace has run out (the run is then found by another instance: its file by its
 * manifest, lib/deliveries/scheduler.ts).
 */
export function untilStored<T>(what: string, write: () => Promise<T>, run: string): Promise<T> {
  return keepUntilStored(what, write, { lane: `run:${run}`, giveUp: () => isDraining() && graceEnded() });
}

export interface PlacedFile {
  file: string;
  records: number | null;
  bytes: number | null;
  sha256: string | null;
  outsideLicence: number | null;
}

/**
 * The file a crashed run placed, if it did: in a folder destination, the manifest written after the file
 * (the last step of placing) naming this run. Other destinations cannot be looked into here: null.
 */
export async function placedBy(run: Run, delivery: Delivery, root: string): Promise<PlacedFile | null> {
  if (delivery.destination.type !== 'directory') return null;
  const folder = String(delivery.destination.folder ?? '');
  if (folderProblem(folder)) return null;
  const dir = path.join(root, folder);
  // File names end with a fragment of the run's id (lib/deliveries/run.ts): only those manifests are read.
  const fragment = `-${run.id.slice(4, 10)}.`;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.endsWith('.manifest.json') && n.includes(fragment))) {
    try {
      const manifest = JSON.parse(await readFile(path.join(dir, name), 'utf8')) as {
        run?: string;
        file?: string;
        records?: number;
        bytes?: number;
        sha256?: string;
        encryption?: { placedAs?: string };
        licenceAttestation?: { result?: string; outside?: { count?: number } };
      };
      if (manifest.run !== run.id || !manifest.file) continue;
      return {
        // An encrypted file was placed as <file>.pgp; the manifest describes the clear one.
        file: path.join(folder, manifest.encryption?.placedAs ?? manifest.file),
        records: manifest.records ?? null,
        bytes: manifest.bytes ?? null,
        sha256: manifest.sha256 ?? null,
        outsideLicence: manifest.licenceAttestation?.result === 'outside' ? (manifest.licenceAttestation.outside?.count ?? null) : null,
      };
    } catch {
      // a manifest being written, or not ours
    }
  }
  return null;
}

/** A crashed run whose file was placed: recorded complete from its manifest, with a word on what happened. */
export async function recoverPlacedRun(db: Kysely<Database>, delivery: Delivery, run: Run, placed: PlacedFile): Promise<void> {
  const finishedMs = Date.now();
  await finishRun(db, run.id, {
    outcome: 'complete',
    records: placed.records,
    bytes: placed.bytes,
    sha256: placed.sha256,
    file: placed.file,
    outsideLicence: placed.outsideLicence,
    error: 'its instance stopped after placing the file and before recording it: recorded from the file’s manifest',
    finishedMs,
    durationMs: finishedMs - Date.parse(run.startedAt),
  });
  await recordOutcome(db, delivery.id, true, null);
  await recordAudit({
    actor: `delivery:${delivery.name}`,
    action: 'delivery.run',
    target: placed.file,
    outcome: 'complete',
    records: placed.records,
    bytes: placed.bytes,
    sha256: placed.sha256,
    durationMs: finishedMs - Date.parse(run.startedAt),
  });
  log('deliveries', { run: run.id, delivery: delivery.id }).warn(
    { file: placed.file },
    `${delivery.name}: a run whose instance stopped had placed its file; recorded complete from its manifest, not retried`,
  );
}
