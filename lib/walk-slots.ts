import 'server-only';
import { getConfig } from './config';
import { AppError } from './errors';
import { getStore } from './store';
import { claimSlot, releaseSlot, renewSlot } from './store/walk-slots';
import { refuseWhileDraining, trackWalk } from './draining';
import { keepRenewed } from './jobs/renewals';
import { waitHitBound } from './waits';

/**
 * Whole-set walks (exports, coverage and delivery runs) are the portal's heaviest work: at most
 * MAX_EXPORTS_PER_USER run at once per person (a delivery's runs count for its owner) across every
 * instance, and MAX_CONCURRENT_EXPORTS per portal process. Beyond
 * that the request is refused with a 429 before any byte or upstream request. Slots are leases in the
 * store, renewed while the walk runs, so those of an instance that died run out within LEASE_MS.
 */

const LEASE_MS = 60_000;
const RENEW_MS = 20_000;

/** Takes a slot for this user's walk, or throws; the returned release is safe to call more than once. */
export async function claimWalkSlot(
  user: string,
  limits: Pick<ReturnType<typeof getConfig>, 'MAX_EXPORTS_PER_USER' | 'MAX_CONCURRENT_EXPORTS'> = getConfig(),
  where?: { db: Awaited<ReturnType<typeof getStore>>['db']; instance: string },
  /** Stops the walk when this instance stops and its grace has run out (exports, coverage reports). */
  cut?: () => void,
): Promise<() => void> {
  refuseWhileDraining();
  let claim;
  let store;
  try {
    store = where ?? (await getStore());
    claim = await claimSlot(store.db, user, store.instance, {
      perOwner: limits.MAX_EXPORTS_PER_USER,
      perInstance: limits.MAX_CONCURRENT_EXPORTS,
      leaseMs: LEASE_MS,
    });
  } catch (error) {
    console.error(`[store] a walk was refused: the store could not be reached (${(error as Error).message})`);
    throw new AppError({ code: 'STORE_UNAVAILABLE' });
  }
  if (!claim.ok) {
    waitHitBound('walk_slot');
    throw new AppError({
      code: 'TOO_MANY_WALKS',
      message:
        claim.reason === 'owner'
          ? `You already have ${claim.held} exports, coverage reports or delivery runs running. Wait for one to finish.`
          : 'The portal is running as many exports, coverage reports and delivery runs as it can. Try again shortly.',
      retryAfterSeconds: 5,
    });
  }
  const { db } = store;
  const id = claim.id;
  const stopRenewing = keepRenewed(RENEW_MS, () => renewSlot(db, id, LEASE_MS));
  const untrack = trackWalk(cut);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    untrack();
    stopRenewing();
    // A release that cannot reach the store is not lost: the lease runs out by itself.
    void releaseSlot(db, id).catch(() => undefined);
  };
}
