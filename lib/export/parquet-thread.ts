import { Worker } from 'node:worker_threads';
import { AppError } from '../errors';
import type { Pick } from '../picks-api/schemas';
import { processSlot } from '../process-state';
import { waitHitBound } from '../waits';
import { keptWorker, workerFromSource } from '../worker-threads';
import { ROW_GROUP } from './parquet';
import type { FromWriter, ToWriter } from './parquet-worker';

/**
 * A Parquet file (./parquet.ts) written on the process's Parquet worker thread (./parquet-worker.ts), where writing a
 * row group on the serving thread held it 0.2–0.3 s at a stretch. The serving thread only hands each page over (as JSON
 * Lines bytes, transferred: an export's are the upstream's own, record history's its stored bodies) and gets the file's bytes
 * back; the walk reads on meanwhile. Each call waits at most CALL_BOUND_MS for its answer (docs/architecture.md,
 * "Waits and their bounds"); a worker that does not answer is ended, and the files it was writing fail with a plain
 * error, never a file that looks complete.
 */

export const CALL_BOUND_MS = 60_000;

interface Pending {
  worker: Worker;
  resolve: (bytes: Uint8Array) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

const state = () => processSlot<{ calls: Map<number, Pending>; next: number }>('parquetCalls').once(() => ({ calls: new Map(), next: 1 }));
const nextId = () => state().next++;

const failed = (why: string) =>
  new AppError({ code: 'INTERNAL', message: `The Parquet file could not be written: ${why}. Nothing was kept of it; start it again.` });

function settle(call: number, answer: { bytes: Uint8Array } | { error: Error }): void {
  const pending = state().calls.get(call);
  if (!pending) return;
  state().calls.delete(call);
  clearTimeout(pending.timer);
  // Held open only while a call waits for it (a command's export must not end before its file does).
  if (![...state().calls.values()].some((other) => other.worker === pending.worker)) pending.worker.unref();
  if ('bytes' in answer) pending.resolve(answer.bytes);
  else pending.reject(answer.error);
}

const writers = keptWorker(
  'parquetWriter',
  () => {
    // NEXT_RUNTIME: Next's server (its bundle holds the worker's own chunk); unset in tests and the tsx-run commands.
    const worker = process.env.NEXT_RUNTIME
      ? new Worker(new URL('./parquet-worker.ts', import.meta.url))
      : workerFromSource(new URL('./parquet-worker.ts', import.meta.url));
    worker.on('message', (message: FromWriter) =>
      settle(message.call, 'bytes' in message ? { bytes: message.bytes } : { error: failed(message.error) }),
    );
    worker.once('exit', (code) => {
      for (const [call, pending] of state().calls)
        if (pending.worker === worker) settle(call, { error: failed(`its writer stopped (exit ${code})`) });
    });
    return worker;
  },
  (worker) => worker.postMessage({ type: 'close' } satisfies ToWriter),
);

/** Pages handed to the writer and not yet answered, at most: the walk reads on while a row group is written. */
const IN_FLIGHT = 16;

interface InFlight {
  answer: Promise<Uint8Array>;
  settled: { bytes: Uint8Array } | { error: unknown } | null;
}

/**
 * One Parquet file, written page by page on the worker; `finish` or `abandon` ends it (either, once). Pages are
 * handed over without waiting for their answers (up to IN_FLIGHT at a time): each call answers the bytes that have
 * come back since, in order, and `finish` all the rest. A failure is thrown by the first call after it.
 */
export class ParquetOnWorker {
  private readonly file = nextId();
  private worker: Worker | null = null;
  private ended = false;
  private readonly inFlight: InFlight[] = [];

  constructor(
    private readonly metadata: Record<string, unknown>,
    private readonly options: { rowGroup?: number; boundMs?: number } = {},
  ) {}

  /** A page's records: the bytes written since the last call (often none, until a row group is full). */
  add(records: readonly Pick[]): Promise<Uint8Array> {
    return this.addLines(Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(''), 'utf8'));
  }

  /**
   * A page's records as JSON Lines in UTF-8 (an export's page as ../export/json.ts writes it: the upstream's own
   * bytes; record history's stored bodies), never decoded here; handed over, not copied, when the bytes have a
   * buffer of their own. Calls are made one after another (each awaited), as a file's pages are.
   */
  async addLines(lines: Uint8Array): Promise<Uint8Array> {
    const own = lines.byteOffset === 0 && lines.byteLength === lines.buffer.byteLength ? lines : lines.slice();
    const transfer = [own.buffer as ArrayBuffer];
    this.send((call) => ({ type: 'lines', file: this.file, call, lines: own }), transfer);
    const parts: Uint8Array[] = [];
    while (this.inFlight.length > IN_FLIGHT) {
      await this.inFlight[0]!.answer.catch(() => undefined);
      parts.push(this.collect());
    }
    parts.push(this.collect());
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  /** The rest of the rows, `metadata` added to the file's, and the footer: every byte not yet answered. */
  async finish(metadata: Record<string, unknown> = {}): Promise<Uint8Array> {
    try {
      this.send((call) => ({ type: 'finish', file: this.file, call, metadata: JSON.stringify(metadata) }));
      await Promise.allSettled(this.inFlight.map((page) => page.answer));
      return this.collect();
    } finally {
      this.end(false);
    }
  }

  /** The file will not be finished (the export failed or its reader left): the worker forgets it. */
  abandon(): void {
    this.end(true);
  }

  /** The answers that have come back, in order, up to the first still awaited. */
  private collect(): Uint8Array {
    const parts: Uint8Array[] = [];
    while (this.inFlight[0]?.settled) {
      const settled = this.inFlight.shift()!.settled!;
      if ('error' in settled) {
        this.end(true);
        throw settled.error;
      }
      if (settled.bytes.byteLength > 0) parts.push(settled.bytes);
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  private send(message: (call: number) => ToWriter, transfer: ArrayBuffer[] = []): void {
    if (this.ended) throw failed('it had already ended');
    const worker = this.open();
    // A writer that has stopped takes messages and never answers: the file it held is lost.
    if (worker.threadId === -1) {
      this.end(false);
      throw failed('its writer stopped');
    }
    const page: InFlight = { answer: this.call(worker, message, transfer), settled: null };
    page.answer.then(
      (bytes) => (page.settled = { bytes }),
      (error: unknown) => (page.settled = { error }),
    );
    this.inFlight.push(page);
  }

  private call(worker: Worker, message: (call: number) => ToWriter, transfer: ArrayBuffer[]): Promise<Uint8Array> {
    const call = nextId();
    const bound = this.options.boundMs ?? CALL_BOUND_MS;
    return new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(() => {
        waitHitBound('worker');
        settle(call, { error: failed(`its writer did not answer within ${bound / 1000} s`) });
        void worker.terminate(); // stuck: the files it holds fail (above), the next file gets a new worker
      }, bound);
      timer.unref();
      state().calls.set(call, { worker, resolve, reject, timer });
      worker.ref();
      worker.postMessage(message(call) satisfies ToWriter, transfer);
    });
  }

  private open(): Worker {
    if (this.worker) return this.worker;
    const worker = writers.take();
    this.worker = worker;
    const open: ToWriter = {
      type: 'open',
      file: this.file,
      metadata: JSON.stringify(this.metadata),
      rowGroup: this.options.rowGroup ?? ROW_GROUP,
    };
    worker.postMessage(open);
    return worker;
  }

  private end(drop: boolean): void {
    if (this.ended) return;
    this.ended = true;
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    if (drop) worker.postMessage({ type: 'drop', file: this.file } satisfies ToWriter);
    writers.release(worker);
  }
}
