import 'server-only';
import type { UpstreamGate } from './gate';

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

export function sharePause(gate: UpstreamGate, board: PauseBoard, pollMs = PAUSE_POLL_MS): UpstreamGate & { stop(): void } {
  let warned = false;
  const warn = (error: unknown) => {
    if (!warned) console.error(`[store] the upstream's pause is not shared while the store is away (${(error as Error).message})`);
    warned = true;
  };
  const poll = async () => {
    try {
      const resumeAt = await board.read();
      warned = false;
      const left = resumeAt - Date.now();
      if (left > 0) gate.coolDown(left);
    } catch (error) {
      warn(error);
    }
  };
  const timer = setInterval(() => void poll(), pollMs);
  timer.unref();
  // The first request of a new instance waits for its first look at the store: a pause already set holds it too.
  const firstLook = poll();
  return {
    acquire: async (...args) => {
      await firstLook;
      return gate.acquire(...args);
    },
    coolDown(ms) {
      gate.coolDown(ms);
      board.publish(Date.now() + ms).catch(warn);
    },
    get stats() {
      return gate.stats;
    },
    stop: () => clearInterval(timer),
  };
}
