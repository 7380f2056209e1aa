import 'server-only';
import type { UpstreamGate } from './gate';
import { registerJob } from '../jobs/registry';
import { log } from '../log';

/**
 * The upstream's Retry-After, shared by every instance: a 429 seen here is published to the store, and
 * each instance reads the store's pause once every `pollMs` (one small query a second, however many
 * requests it serves) and holds its own gate back until then. An instance learns of another's 429 within
 * `pollMs`; its own 429s hold it back at once. A store that cannot be reached only loses the sharing.
 */

export interface PauseBoard {
  publish(resumeAt: number): Promise<void>;
  read(): Promise<number>;
}

export const PAUSE_POLL_MS = 1_000;

export function sharePause(gate: UpstreamGate, board: PauseBoard, pollMs = PAUSE_POLL_MS): UpstreamGate & { stop(): Promise<void> } {
  const look = async () => {
    let resumeAt: number;
    try {
      resumeAt = await board.read();
    } catch (error) {
      throw new Error(`the upstream's pause is not shared while the store is away (${(error as Error).message})`);
    }
    const left = resumeAt - Date.now();
    if (left > 0) gate.coolDown(left);
  };
  // It stops last: exports finishing during a stop still hold back for another instance's pause.
  const job = registerJob({
    name: 'upstream-pause',
    everyMs: pollMs,
    firstAfterMs: pollMs,
    lease: 'every instance',
    stopsAt: 'close',
    run: look,
  });
  // The first request of a new instance waits for its first look at the store: a pause already set holds it too.
  const firstLook = job.runNow();
  return {
    acquire: async (...args) => {
      await firstLook;
      return gate.acquire(...args);
    },
    coolDown(ms) {
      gate.coolDown(ms);
      board.publish(Date.now() + ms).catch((error: unknown) => log('store').warn({ err: error }, 'a pause could not be shared'));
    },
    get stats() {
      return gate.stats;
    },
    stop: job.stop,
  };
}
