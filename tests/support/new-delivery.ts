import type { Kysely } from 'kysely';
import type { Delivery, NewDelivery } from '@/lib/store/deliveries';
import type { Database } from '@/lib/store/schema';

/**
 * Deliveries written straight to the store for a contract test: each file's usual one (`usual`, given the
 * delivery's number), then the test's own changes. Ids count up from `firstId`; made at `now`.
 */
export function deliveryMaker(
  db: () => Kysely<Database>,
  usual: (n: number) => Pick<NewDelivery, 'name' | 'kind' | 'format' | 'filters' | 'destination'>,
  options: { now: number; firstId?: number },
): (change?: Partial<NewDelivery>) => Promise<Delivery> {
  let counter = 0;
  return async (change = {}) => {
    counter += 1;
    const store = await import('@/lib/store/deliveries');
    const id = `dlv_${((options.firstId ?? 0) + counter).toString(16).padStart(16, '0')}`;
    const at = new Date(options.now).toISOString();
    await addOwners(db(), { [change.createdBy ?? 'ana@example.com']: 'editor' });
    await store.insertDelivery(db(), {
      id,
      schedule: '0 6 * * *',
      secret: null,
      createdBy: 'ana@example.com',
      createdAt: at,
      updatedAt: at,
      lastDueMs: options.now,
      ...usual(counter),
      ...change,
    });
    return (await store.findDelivery(db(), id))!;
  };
}

/** The folder of a delivery to a directory, inside the delivery root. */
export const folderOf = (delivery: Delivery): string => String(delivery.destination.folder);

/** Deliveries act for their owner (lib/auth/principal.ts): the test's owners are people of the store. */
export async function addOwners(db: Kysely<Database>, owners: Record<string, string> = { 'ana@example.com': 'editor' }): Promise<void> {
  const { insertUserIfAbsent } = await import('@/lib/store/users');
  for (const [email, role] of Object.entries(owners))
    await insertUserIfAbsent(db, {
      email,
      role,
      passwordHash: 'scrypt$x',
      createdAt: new Date(0).toISOString(),
      demo: false,
      disabled: false,
    });
}
