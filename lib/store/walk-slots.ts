import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { takeLock } from './locks';
import type { Database } from './schema';
import { waitHitBound } from '../waits';

/**
 * Slots for exports and coverage walks, counted across every instance. A claim runs in a transaction
 * that first updates the `walks` lock row, which serialises claimers on both engines (a row lock in
 * PostgreSQL, the write lock in SQLite). Each slot is a lease: the holder renews it, and the slots of
 * an instance that died run out by themselves.
 */

type Db = Kysely<Database>;

export interface SlotLimits {
  /** Counted across every instance. */
  perOwner: number;
  /** Counted on the claiming instance only: it bounds that machine's work. */
  perInstance: number;
  leaseMs: number;
}

export type SlotClaim = { ok: true; id: string } | { ok: false; reason: 'owner' | 'instance'; held: number };

export async function claimSlot(db: Db, owner: string, instance: string, limits: SlotLimits, now = Date.now()): Promise<SlotClaim> {
  return db.transaction().execute(async (trx) => {
    await takeLock(trx, 'walks');
    // The leases of an instance that stopped ran out: their slots are free again.
    const expired = Number((await trx.deleteFrom('walk_slots').where('expires_at', '<=', now).executeTakeFirst()).numDeletedRows);
    if (expired > 0) waitHitBound('lease', expired);
    const counts = await trx
      .selectFrom('walk_slots')
      .select((eb) => [
        eb.fn.sum<number>(eb.case().when('instance', '=', instance).then(1).else(0).end()).as('here'),
        eb.fn.sum<number>(eb.case().when('owner', '=', owner).then(1).else(0).end()).as('mine'),
      ])
      .executeTakeFirstOrThrow();
    const mine = Number(counts.mine ?? 0);
    if (mine >= limits.perOwner) return { ok: false, reason: 'owner', held: mine } as const;
    const here = Number(counts.here ?? 0);
    if (here >= limits.perInstance) return { ok: false, reason: 'instance', held: here } as const;
    const id = randomUUID();
    await trx
      .insertInto('walk_slots')
      .values({ id, owner, instance, expires_at: now + limits.leaseMs })
      .execute();
    return { ok: true, id } as const;
  });
}

export async function renewSlot(db: Db, id: string, leaseMs: number, now = Date.now()): Promise<void> {
  await db
    .updateTable('walk_slots')
    .set({ expires_at: now + leaseMs })
    .where('id', '=', id)
    .execute();
}

export async function releaseSlot(db: Db, id: string): Promise<void> {
  await db.deleteFrom('walk_slots').where('id', '=', id).execute();
}

/** Slots held now across every instance (expired leases not counted). */
export async function countSlots(db: Db, now = Date.now()): Promise<number> {
  const row = await db
    .selectFrom('walk_slots')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
