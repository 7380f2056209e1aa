import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { setTimeout as pause } from 'node:timers/promises';
import { parentPort } from 'node:worker_threads';
import type { StoreTarget } from '../config/store';
import { boundedOut, connectStore } from '../store/connect';
import { recordDelivered } from '../store/delivered';
import { recordVersionsIn } from '../store/history';
import { keepIndex } from '../records/keep-index';
import { versionOf, type Observer, type Version } from '../vocabulary/version';

/**
 * The keeping of a spool (./capture.ts), on a worker thread with a store connection of its own: reading the
 * pages, parsing them, naming each record's version (canonical JSON and its sha256) and writing each batch
 * (its versions into the history, its list into delivered_versions, one transaction) never take the serving
 * thread's time (ADR 0012). Before each batch is written the serving thread says when (it gives way to the
 * walks people are waiting for); memory holds one batch whatever the file's size. The worker stays for the
 * next file (its modules are loaded once, not per file) until the serving thread closes it when idle.
 */

/** `ready`: a batch waits for its go; `batched`: that batch is committed (the serving thread's writes may go on). */
export type ToServer =
  | { type: 'ready' }
  | { type: 'batched' }
  | { type: 'done'; kept: number; dropped?: number }
  | { type: 'failed'; message: string; bounded: boolean };
/**
 * A file to keep, or the index of the licensed set to bring up to the history (one work at a time: the serving
 * thread sends the next once this one is done); go for a batch; halt the work (its next batch is not written); close.
 */
export type FromServer =
  { type: 'keep'; work: KeepWork } | { type: 'index'; target: StoreTarget } | { type: 'go' } | { type: 'halt' } | { type: 'close' };
/** What the file is: its id, what read it, and the delivery it went to; `listed: false` keeps its versions only. */
export interface CaptureSource {
  id: string;
  by: Observer;
  deliveryId?: string | null;
  /** Whether the file's (record, version) list is kept for reconciliation (default: yes). */
  listed?: boolean;
}

export interface KeepWork {
  file: string;
  batchSize: number;
  /** Between two batches, so the serving thread's writers find the store free. */
  pauseMs: number;
  target: StoreTarget;
  source: CaptureSource;
}

const port = parentPort!;
let go: (() => void) | null = null;
let halted = false;
const told = () => new Promise<void>((resolve) => (go = resolve));
/** A batch's turn: asked for, then given (or the work halted: nothing more is written). */
const turn = async () => {
  port.postMessage({ type: 'ready' } satisfies ToServer);
  await told();
  if (halted) throw new Error('halted by the serving thread');
};

port.on('message', (message: FromServer) => {
  if (message.type === 'go' || message.type === 'halt') {
    if (message.type === 'halt') halted = true;
    const resolve = go;
    go = null;
    resolve?.();
  } else if (message.type === 'keep') {
    halted = false;
    void keepFile(message.work);
  } else if (message.type === 'index') {
    halted = false;
    void followHistory(message.target);
  } else process.exit(0); // idle: the serving thread closes the worker (this ends the thread, not the process)
});

/** The index of the licensed set brought up to the history, each batch written in its turn (../records/keep-index.ts). */
async function followHistory(target: StoreTarget): Promise<void> {
  let db: ReturnType<typeof connectStore> | null = null;
  let message: ToServer;
  try {
    db = connectStore(target);
    const kept = await keepIndex(db, undefined, Date.now, {
      before: turn,
      after: () => port.postMessage({ type: 'batched' } satisfies ToServer),
    });
    message = { type: 'done', kept: kept.put, dropped: kept.dropped };
  } catch (error) {
    message = { type: 'failed', message: (error as Error).message, bounded: boundedOut(error) };
  }
  await db?.destroy().catch(() => undefined);
  port.postMessage(message);
}

/** One file kept on a connection of its own, closed when the file is done (a test's store may go with it). */
async function keepFile(work: KeepWork): Promise<void> {
  const kept = { count: 0 };
  let db: ReturnType<typeof connectStore> | null = null;
  let message: ToServer;
  try {
    db = connectStore(work.target);
    await readBack(work, db, kept);
    message = { type: 'done', kept: kept.count };
  } catch (error) {
    message = { type: 'failed', message: (error as Error).message, bounded: boundedOut(error) };
  }
  await db?.destroy().catch(() => undefined);
  port.postMessage(message);
}

async function readBack(
  { file, batchSize, pauseMs, source }: KeepWork,
  db: ReturnType<typeof connectStore>,
  kept: { count: number },
): Promise<void> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  const seen = new Set<string>();
  let batch: Version[] = [];
  let batchAt = 0;
  const send = async () => {
    if (batch.length === 0) return;
    await turn();
    const versions = batch;
    await db.transaction().execute(async (trx) => {
      await recordVersionsIn(trx, versions, batchAt, source.by);
      if (source.listed !== false) await recordDelivered(trx, source.id, versions, batchAt, source.deliveryId ?? null);
    });
    port.postMessage({ type: 'batched' } satisfies ToServer);
    kept.count += versions.length;
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
