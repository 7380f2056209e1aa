import { openStore } from '../../lib/store/open';
import { claimSlot } from '../../lib/store/walk-slots';

/** A separate process (an "instance") claiming walk slots at once, for tests/unit/store.test.ts. Prints how many it got. */
const target = JSON.parse(process.env.CLAIM_TARGET!);
const store = await openStore(target);
const limits = { perOwner: 3, perInstance: 100, leaseMs: 60_000 };
const claims = await Promise.all(Array.from({ length: 8 }, () => claimSlot(store.db, 'ana', `pid-${process.pid}`, limits)));
await store.close();
console.log(claims.filter((claim) => claim.ok).length);
