import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { processSlot } from './process-state';

/**
 * Worker threads the portal keeps per process for work that would hold the serving thread (record history's
 * read-back, Parquet's row groups): made on first use, kept between uses (loading a worker's modules costs about
 * 0.2 s of CPU), closed when nobody has used it for IDLE_CLOSE_MS, never what holds the process open. A worker
 * that exits is forgotten; the next use makes a new one.
 */

const IDLE_CLOSE_MS = 30_000;

interface Kept {
  worker: Worker;
  users: number;
  idle: NodeJS.Timeout | null;
}

export interface KeptWorker {
  /** The worker, for one more user (each `take` is matched by one `release`). */
  take(): Worker;
  /** One user done with `worker`: when none is left, it is closed after a while unless taken again. */
  release(worker: Worker): void;
}

/**
 * The process's worker called `name`. `make` creates it (and may attach listeners that outlive each user);
 * `close` asks it to end when idle (a message it ends itself on, so it can finish cleanly).
 */
export function keptWorker(name: string, make: () => Worker, close: (worker: Worker) => void): KeptWorker {
  const slot = processSlot<Kept>(name);
  return {
    take() {
      const kept = slot.get();
      if (kept) {
        if (kept.idle) clearTimeout(kept.idle);
        kept.idle = null;
        kept.users += 1;
        return kept.worker;
      }
      const worker = make();
      worker.unref(); // never what holds the process open
      worker.once('exit', () => {
        if (slot.get()?.worker === worker) slot.set(undefined);
      });
      worker.on('error', () => undefined); // its users hear of it through their own listeners; the next use gets a new worker
      slot.set({ worker, users: 1, idle: null });
      return worker;
    },
    release(worker) {
      const kept = slot.get();
      if (kept?.worker !== worker) return;
      kept.users = Math.max(0, kept.users - 1);
      if (kept.users > 0 || kept.idle) return;
      kept.idle = setTimeout(() => {
        if (slot.get() !== kept) return;
        slot.set(undefined);
        close(worker);
      }, IDLE_CLOSE_MS);
      kept.idle.unref();
    },
  };
}

/**
 * A worker run from its TypeScript source (tests, the tsx-run commands), required through tsx's CommonJS hook,
 * which worker threads take on Node 20. In Next's server the caller writes `new Worker(new URL('./x.ts',
 * import.meta.url))` itself: the bundler sees that expression and gives the worker a chunk of its own.
 */
export function workerFromSource(url: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const entry = fileURLToPath(url);
  const code = `require('tsx/cjs/api').require(${JSON.stringify(entry)}, ${JSON.stringify(entry)});`;
  return new Worker(code, { ...options, eval: true });
}
