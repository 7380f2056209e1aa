import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { setTimeout as pause } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import type { StoreTarget } from '../config/store';
import { boundedOut, connectStore } from '../store/connect';
import { recordDelivered } from '../store/delivered';
import { recordVersionsIn } from '../store/history';
import { versionOf, type Observer, type Version } from '../vocabulary/version';

/**
 * The keeping of a spool (./capture.ts), on a worker thread with a store connection of its own: reading the
 * pages, parsing them, naming each record's version (canonical JSON and its sha256) and writing each batch
 * (its versions into the history, its list into delivered_versions, one transaction) never take the serving
 * thread's time (ADR 0012). Before each batch is written the serving thread says when (it gives way to the
 * walks people are waiting for); memory holds one batch whatever the file's size.
 */

export type ToServer = { type: 'ready' } | { type: 'done'; kept: number } | { type: 'failed'; message: string; bounded: boolean };
export type FromServer = 'go';
export interface KeepWork {
  file: string;
  batchSize: number;
  /** Between two batches, so the serving thread's writers find the store free. */
  pauseMs: number;
  target: StoreTarget;
  source: { id: string; by: Observer; deliveryId?: string | null };
}

const { file, batchSize, pauseMs, target, source } = workerData as KeepWork;
const port = parentPort!;
const told = () => new Promise<void>((resolve) => port.once('message', () => resolve()));
const db = connectStore(target);
let kept = 0;

async function readBack(): Promise<void> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  const seen = new Set<string>();
  let batch: Version[] = [];
  let batchAt = 0;
  const send = async () => {
    if (batch.length === 0) return;
    port.postMessage({ type: 'ready' } satisfies ToServer);
    await told();
    const versions = batch;
    await db.transaction().execute(async (trx) => {
      await recordVersionsIn(trx, versions, batchAt, source.by);
      await recordDelivered(trx, source.id, versions, batchAt, source.deliveryId ?? null);
    });
    kept += versions.length;
    batch = [];
    await pause(pauseMs);
  };
  try {
    const header = Buffer.alloc(13);
    for (let at = 0; ;) {
      const { bytesRead } = await handle.read(header, 0, 13, at);
      if (bytesRead < 13) break;
      const length = header.readUInt32BE(0);
      const readAt = header.readDoubleBE(4);
      const encoding = header.readUInt8(12) === 1 ? 'latin1' : 'utf8';
      const payload = Buffer.alloc(length);
      await handle.read(payload, 0, length, at + 13);
      at += 13 + length;
      const body = JSON.parse(payload.toString(encoding)) as { data?: unknown };
      for (const record of Array.isArray(body.data) ? body.data : []) {
        if (!record || typeof record !== 'object' || typeof (record as { id?: unknown }).id !== 'string') continue;
        const version = versionOf(record as Record<string, unknown> & { id: string }, encoding);
        if (seen.has(version.id)) continue; // the first sighting of an id is the one written
        seen.add(version.id);
        batch.push(version);
        batchAt = readAt;
        if (batch.length >= batchSize) await send();
      }
    }
    await send();
  } finally {
    await handle.close();
  }
}

readBack()
  .then(
    (): ToServer => ({ type: 'done', kept }),
    (error: unknown): ToServer => ({ type: 'failed', message: (error as Error).message, bounded: boundedOut(error) }),
  )
  .then(async (message) => {
    await db.destroy().catch(() => undefined);
    port.postMessage(message);
  });
