import { openStore } from '../../lib/store/open';
import type { StoreTarget } from '../../lib/config/store';

/**
 * One process opening the store (tests/unit/store-open.test.ts): it waits until START_AT (ms since the epoch), so
 * that several of them bring a fresh store up to date at the same moment, then prints "opened" or the error.
 */
const target = JSON.parse(process.env.OPEN_TARGET ?? '{}') as StoreTarget;
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(process.env.START_AT) - Date.now())));
try {
  const store = await openStore(target, { attempts: 1 });
  await store.close();
  console.log('opened');
} catch (error) {
  console.log(`failed: ${(error as Error).message}`);
  process.exitCode = 1;
}
