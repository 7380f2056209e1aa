import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { versionOf, type Version } from '../vocabulary/version';

/**
 * The read-back of a spool (./capture.ts), on a worker thread: reading the pages, parsing them and naming each
 * record's version (canonical JSON and its sha256) never takes the serving thread's time (ADR 0012). Batches
 * of versions go to the serving thread, which keeps them in the store; the next batch is read when it asks
 * for it, so memory holds one batch whatever the file's size.
 */

export type ToServer = { type: 'batch'; versions: Version[]; at: number } | { type: 'done' } | { type: 'failed'; message: string };
export type FromServer = 'more';

const { file, batchSize } = workerData as { file: string; batchSize: number };
const port = parentPort!;
const asked = () => new Promise<void>((resolve) => port.once('message', () => resolve()));

async function readBack(): Promise<void> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  const seen = new Set<string>();
  let batch: Version[] = [];
  let batchAt = 0;
  const send = async () => {
    if (batch.length === 0) return;
    port.postMessage({ type: 'batch', versions: batch, at: batchAt } satisfies ToServer);
    batch = [];
    await asked();
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

readBack().then(
  () => port.postMessage({ type: 'done' } satisfies ToServer),
  (error: unknown) => port.postMessage({ type: 'failed', message: (error as Error).message } satisfies ToServer),
);
