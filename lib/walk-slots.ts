import 'server-only';
import { getConfig } from './config';
import { AppError } from './errors';

/**
 * Whole-set walks (exports and coverage) are the portal's heaviest work: at most MAX_EXPORTS_PER_USER
 * run at once per person and MAX_CONCURRENT_EXPORTS per portal process. Beyond that the request is
 * refused with a 429 before any byte or upstream request, so one user cannot starve everyone.
 */

interface Slots {
  total: number;
  byUser: Map<string, number>;
}

const holder = globalThis as typeof globalThis & { __portalWalkSlots?: Slots };
const slots = (holder.__portalWalkSlots ??= { total: 0, byUser: new Map() });

/** Takes a slot for this user's walk, or throws; the returned release is safe to call more than once. */
export function claimWalkSlot(user: string, limits = getConfig()): () => void {
  const mine = slots.byUser.get(user) ?? 0;
  if (mine >= limits.MAX_EXPORTS_PER_USER) {
    throw new AppError({
      code: 'TOO_MANY_WALKS',
      message: `You already have ${mine} exports or coverage reports running. Wait for one to finish.`,
      retryAfterSeconds: 5,
    });
  }
  if (slots.total >= limits.MAX_CONCURRENT_EXPORTS) {
    throw new AppError({
      code: 'TOO_MANY_WALKS',
      message: 'The portal is running as many exports and coverage reports as it can. Try again shortly.',
      retryAfterSeconds: 5,
    });
  }
  slots.total += 1;
  slots.byUser.set(user, mine + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    slots.total -= 1;
    const left = (slots.byUser.get(user) ?? 1) - 1;
    if (left > 0) slots.byUser.set(user, left);
    else slots.byUser.delete(user);
  };
}
