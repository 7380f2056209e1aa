import { sql } from 'kysely';
import { isRole } from '../vocabulary/roles';
import { importUsersFile } from './import-users';
import { openStore, StoreError, type OpenOptions, type Store } from './open';
import { storeSettings } from '../config';
import { AppError, isAppError } from '../errors';
import { storeTarget } from '../config/store';
import { processSlot, promiseSlot } from '../process-state';

/**
 * The store of this process: the only way the portal, its command-line tools and its background work
 * reach persistent state. Opened once per process (globalThis: Next bundles route handlers and pages
 * separately), from DATABASE_URL or PORTAL_DATA_DIR.
 */

export type { Store } from './open';
export { StoreError } from './open';

const opened = promiseSlot<Store>('store');
type Observer = NonNullable<OpenOptions['observe']>;
const observer = processSlot<Observer>('storeObserver');

/** Each query's duration and failure go to `observe` (the metrics: lib/start/portal.ts sets it before the store opens). */
export const observeStoreWith = (observe: Observer): void => observer.set(observe);

/** The store, opened on first use. A failed open is forgotten, so the next call tries again. */
export function getStore(options: OpenOptions = {}): Promise<Store> {
  return opened.once(() => open(options));
}

async function open(options: OpenOptions): Promise<Store> {
  const settings = storeSettings();
  // Query durations and failures go to this process's metrics only when the portal counts them (set by
  // lib/start/portal.ts before it opens the store): otherwise no query pays for a log hook.
  const observe = options.observe ?? observer.get();
  const store = await openStore(storeTarget(settings), { ...options, observe });
  const log = options.log ?? ((line: string) => console.log(line));
  const outcome = await importUsersFile(store.db, settings.PORTAL_USERS_FILE, isRole);
  if (outcome.kind === 'imported')
    log(
      `[store] imported ${outcome.added} user(s) from ${settings.PORTAL_USERS_FILE} (${outcome.skipped} already present); the file is no longer read`,
    );
  if (outcome.kind === 'already' && outcome.changed)
    log(
      `[store] ${settings.PORTAL_USERS_FILE} changed after it was imported (${outcome.at}); the change is ignored: manage users with \`npm run users\``,
    );
  return store;
}

/** A failure of the store as the portal's error: STORE_UNAVAILABLE (a 503), the cause kept for logs. */
export const storeUnavailable = (cause: unknown) => new AppError({ code: 'STORE_UNAVAILABLE', cause });

/** Runs `work` on the store; failing to open it or to query it is the portal's STORE_UNAVAILABLE (a 503). */
export async function fromStore<T>(work: (db: Store['db']) => Promise<T>): Promise<T> {
  try {
    return await work((await getStore()).db);
  } catch (error) {
    if (isAppError(error)) throw error; // already the portal's own answer (a 409, a 429…), not the store going away
    throw storeUnavailable(error);
  }
}

/** The store if this process opened it (or is opening it), without opening one. */
export const openedStore = (): Promise<Store> | undefined => opened.get();

/** Closes this process's store (tests, command-line tools). */
export async function closeStore(): Promise<void> {
  const opening = opened.get();
  opened.set(undefined);
  if (opening) await (await opening.catch(() => null))?.close();
}

/** Whether the store answers a trivial query within `timeoutMs`. */
export async function storeAnswers(timeoutMs = 2_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const store = await getStore();
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new StoreError('timeout')), timeoutMs)));
    await Promise.race([sql`select 1`.execute(store.db), timeout]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
