import { constants, createWriteStream, mkdirSync, openSync, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import pLimit, { type LimitFunction } from 'p-limit';
import { processSlot } from '../process-state';
import { keptWorker, workerFromSource } from '../worker-threads';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { pageBytes, type PickList } from '../picks-api';
import { runningWalks } from '../draining';
import { encodingOf } from '../picks-api/byte-strings';
import { SQLITE_BUSY_MS, targetOf } from '../store/connect';
import { holdStoreWrites } from '../store/write-gate';
import { lastHistoryWrite } from '../store/history-writes';
import { indexMark, keepIndex } from '../records/keep-index';
import type { Database } from '../store/schema';
import { waitHitBound } from '../waits';
import type { CaptureSource, FromServer, ToServer } from './keep-worker';

export type { CaptureSource };

/**
 * What an export or a delivery run delivered, kept for reconciliation without slowing it down: while it
 * streams, each page's body goes to a spool file as the upstream sent it (no work per record: the bytes are
 * already in hand); once it has ended complete, the spool is read back in the background, each record's
 * version is named and kept in the history, and the file's list of (record, version) is stored. A run
 * that fails or is cancelled keeps nothing. Records a walk dropped as duplicates are dropped here too
 * (the first sighting of an id is the one written).
 */

export interface Capture {
  /**
   * A page as written to the file (`bytes`: its body as received, when the page does not carry it); resolves when the
   * spool can take more (its disk is slower than the reader).
   */
  page(page: PickList, bytes?: Uint8Array | null): Promise<void> | void;
  /** The file ended: kept when complete (in the background; `kept` settles when done), discarded otherwise. */
  finish(complete: boolean): void;
  /** Settles once the spool is processed or discarded; rejects when keeping failed. */
  readonly kept: Promise<number>;
}

// Read back in small batches with a pause between them: background work that leaves the process to the pages
// and files people are waiting for (a 40,000-record file takes a few seconds more to be kept, not their time).
// While exports, coverage reports or delivery runs are running in this process, it waits for them to end (they are
// what people wait for), but never more than YIELD_MAX_MS in all: a file is reconcilable within a minute or so.
const BATCH = 200;
const PAUSE_MS = 2;
const YIELD_MAX_MS = 60_000;
const YIELD_POLL_MS = 100;
const readBacks = () => processSlot<LimitFunction>('historyReadBacks').once(() => pLimit(1));
/** A spool file made here and now, owner-only, never one already there or a link planted in its place. */
export function newFileStream(file: string, highWaterMark?: number): WriteStream {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  return createWriteStream(file, { fd, highWaterMark });
}

// The spool takes a few pages before it holds the export back.
const SPOOL_BUFFER = 1024 * 1024;

export function startCapture(
  db: () => Promise<Kysely<Database>>,
  source: CaptureSource,
  spoolDir: string,
  onError: (error: unknown) => void = () => undefined,
): Capture {
  const file = path.join(spoolDir, `capture-${source.id}.bin`);
  let stream: WriteStream | null = null;
  let failed: unknown = null;
  let settle: (value: Promise<number>) => void = () => undefined;
  const kept = new Promise<number>((resolve) => (settle = resolve));
  kept.catch(onError);

  /** The spool's stream, made on the first page; null when it cannot be made (finish() then reports why). */
  const writer = (): WriteStream | null => {
    if (!stream && !failed) {
      try {
        mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
        stream = newFileStream(file, SPOOL_BUFFER);
        stream.on('error', (error) => (failed = error));
      } catch (error) {
        failed = error;
      }
    }
    return stream;
  };

  return {
    page(page, bytes) {
      if (failed) return;
      const raw = pageBytes(page) ?? bytes ?? undefined;
      // The upstream's bytes when the page is written as received; otherwise (records dropped by the walk) its data.
      const payload = raw
        ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)
        : Buffer.from(JSON.stringify({ data: page.data }), encodingOf(page));
      const header = Buffer.alloc(13);
      header.writeUInt32BE(payload.length, 0);
      header.writeDoubleBE(Date.now(), 4);
      header.writeUInt8(encodingOf(page) === 'latin1' ? 1 : 0, 12);
      const out = writer();
      if (!out) return;
      out.write(header);
      // A spool that falls behind holds the export back: memory stays bounded whatever the disk.
      if (!out.write(payload))
        return new Promise<void>((resolve) => {
          // A spool that fails lets the export go on (it keeps nothing): never a stream waiting for ever.
          const done = () => {
            for (const event of ['drain', 'error', 'close']) out.off(event, done);
            resolve();
          };
          for (const event of ['drain', 'error', 'close']) out.on(event, done);
        });
    },
    finish(complete) {
      const open = stream as WriteStream | null;
      const closed = open ? new Promise<void>((resolve) => open.end(resolve)) : Promise.resolve();
      settle(
        closed.then(async () => {
          try {
            if (failed) throw failed;
            if (!complete || !stream) return 0;
            // One read-back at a time in this process (one worker, one batch in memory), each giving way to walks
            // for at most YIELD_MAX_MS from its file's end, however long it queued.
            const yieldUntil = Date.now() + YIELD_MAX_MS;
            const store = await db();
            return await readBacks()(() => keepSpool(store, file, source, yieldUntil));
          } finally {
            await rm(file, { force: true });
          }
        }),
      );
    },
    kept,
  };
}

/**
 * The spool kept on the worker thread (./keep-worker.ts names the versions and writes each batch on its own
 * connection to the same store); before each batch it asks, and is told to go once no walk is running here.
 */
async function keepSpool(db: Kysely<Database>, file: string, source: CaptureSource, yieldUntil: number): Promise<number> {
  const done = await onKeeper(db, `the keeping of ${path.basename(file)}`, yieldUntil, (target) => ({
    type: 'keep',
    work: { file, batchSize: BATCH, pauseMs: PAUSE_MS, target, source },
  }));
  return done.kept;
}

/**
 * The index of the licensed set brought up to the record history on the worker thread (lib/records/keep-index.ts),
 * each batch in its turn as a spool's: the full-text index's work at each commit takes no request's time. After
 * the files queued before it; halted between batches when `signal` aborts (the process stopping).
 */
export async function keepIndexOnWorker(db: Kysely<Database>, signal?: AbortSignal): Promise<{ put: number; dropped: number }> {
  // Nothing moved since the index last followed: its mark's time is written here, and the worker is left to close.
  if ((await lastHistoryWrite(db)) <= (await indexMark(db)).write) return keepIndex(db, signal);
  const yieldUntil = Date.now() + YIELD_MAX_MS;
  try {
    const done = await readBacks()(() => onKeeper(db, 'the index keeping', yieldUntil, (target) => ({ type: 'index', target }), signal));
    return { put: done.kept, dropped: done.dropped ?? 0 };
  } catch (error) {
    if (signal?.aborted) return { put: 0, dropped: 0 };
    throw error;
  }
}

/** One work on the keeper: each batch told to go once no walk runs here, this thread's writes held while it commits. */
async function onKeeper(
  db: Kysely<Database>,
  what: string,
  yieldUntil: number,
  work: (target: NonNullable<ReturnType<typeof targetOf>>) => FromServer,
  signal?: AbortSignal,
): Promise<Extract<ToServer, { type: 'done' }>> {
  const target = targetOf(db);
  if (!target) throw new Error('the store to keep in is not one this process opened');
  const giveWay = async () => {
    while (runningWalks() > 0 && Date.now() < yieldUntil && !signal?.aborted) await pause(YIELD_POLL_MS);
  };
  const worker = keeper.take();
  const tell = (message: FromServer) => worker.postMessage(message);
  let onError: (error: Error) => void = () => undefined;
  let onExit: (code: number) => void = () => undefined;
  let onMessage: (message: ToServer) => void = () => undefined;
  let releaseWrites = () => undefined as void;
  try {
    return await new Promise<Extract<ToServer, { type: 'done' }>>((resolve, reject) => {
      onError = reject;
      onExit = (code) => reject(new Error(`${what} stopped (exit ${code})`));
      onMessage = (message) => {
        if (message.type !== 'ready') releaseWrites(); // a batch committed, or the work ended either way
        if (message.type === 'batched') return;
        if (message.type === 'done') return resolve(message);
        if (message.type === 'failed') {
          if (message.bounded) waitHitBound('store');
          return reject(new Error(message.message));
        }
        void giveWay().then(() => {
          if (signal?.aborted) return tell({ type: 'halt' });
          // This thread's own writes wait (asynchronously) while the batch holds the file's write lock.
          if (target.engine === 'sqlite') releaseWrites = holdStoreWrites(SQLITE_BUSY_MS);
          tell({ type: 'go' });
        });
      };
      worker.on('error', onError).on('exit', onExit).on('message', onMessage);
      tell(work(target));
    });
  } finally {
    releaseWrites();
    worker.off('error', onError).off('exit', onExit).off('message', onMessage);
    keeper.release(worker);
  }
}

// One worker per process, kept between files, closed when idle (lib/worker-threads.ts). Its heap holds one batch:
// a small young generation keeps it from growing the process while exports run beside it.
const KEEPER_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 128 };
const keeper = keptWorker(
  'historyKeeper',
  () =>
    // NEXT_RUNTIME: Next's server (its bundle holds the worker's own chunk); unset in tests and the tsx-run commands.
    process.env.NEXT_RUNTIME
      ? new Worker(new URL('./keep-worker.ts', import.meta.url), { resourceLimits: KEEPER_LIMITS })
      : workerFromSource(new URL('./keep-worker.ts', import.meta.url), { resourceLimits: KEEPER_LIMITS }),
  (worker) => worker.postMessage({ type: 'close' } satisfies FromServer),
);
