import 'server-only';
import { getConfig } from '../config';
import { spoolDirOf } from '../config/spool';
import { log } from '../log';
import type { PickList } from '../picks-api';
import { processSlot } from '../process-state';
import { getStore } from '../store';
import { startCapture, type Capture } from './capture';

/**
 * The pages API v1 reads for tokens, kept in the record history (and so in the index of the licensed set) as the
 * change feed's polls and the exports' pages are: each page's body goes to a spool file as the upstream sent it
 * (no work per record on the consumer's request), and every few seconds the file is closed and read back in the
 * background (lib/history/capture.ts). Best effort, never in the consumer's way: a page arriving while the spool is
 * still writing the last one out is not kept (the polls and the whole walk see its records anyway), and the files
 * list nothing for reconciliation (a token's read is not a file the portal delivered).
 */

const ROTATE_MS = 5_000;
const ROTATE_PAGES = 500;

interface Open {
  capture: Capture;
  pages: number;
  /** A page's write the spool has not taken yet: the next page is passed over rather than queued. */
  behind: boolean;
  timer: ReturnType<typeof setTimeout>;
}

const current = processSlot<Open | null>('apiCapture');
let failures = 0;

function close(open: Open): void {
  clearTimeout(open.timer);
  if (current.get() === open) current.set(null);
  open.capture.finish(open.pages > 0);
}

function opened(): Open {
  const now = current.get();
  if (now) return now;
  const capture = startCapture(
    async () => (await getStore()).db,
    { id: `api_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`, by: 'api', listed: false },
    spoolDirOf(getConfig()),
    (error) => {
      // Said once a while, not for every file: the index still follows the polls and the whole walk.
      if (failures++ % 100 === 0) log('history').warn({ err: error }, 'pages read for tokens could not be kept in the history');
    },
  );
  const open: Open = { capture, pages: 0, behind: false, timer: setTimeout(() => close(open), ROTATE_MS) };
  open.timer.unref?.();
  current.set(open);
  return open;
}

/**
 * A page API v1 read from the upstream for a token: kept in the history in the background, when the spool can take
 * it. `bytes`: its body as the upstream sent it, spooled as it is (nothing serialised on the consumer's request).
 */
export function observeApiPage(page: PickList, bytes?: Uint8Array | null): void {
  if (page.data.length === 0) return;
  try {
    const open = opened();
    if (open.behind) return;
    const written = open.capture.page(page, bytes);
    open.pages += 1;
    if (written) {
      open.behind = true;
      void written.then(() => (open.behind = false));
    }
    if (open.pages >= ROTATE_PAGES) close(open);
  } catch (error) {
    if (failures++ % 100 === 0) log('history').warn({ err: error }, 'a page read for a token could not be spooled');
  }
}

/** Closes the file being written now (tests, and a process about to stop): its pages are read back at once. */
export function flushApiPages(): Promise<number> {
  const open = current.get();
  if (!open) return Promise.resolve(0);
  close(open);
  return open.capture.kept;
}
