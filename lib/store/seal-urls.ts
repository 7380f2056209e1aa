import { sql, type Kysely } from 'kysely';
import { isSealed } from './at-rest';
import { getWebhook, saveWebhook } from './alert-channels';
import { findDelivery, updateDelivery } from './deliveries';
import type { Database } from './schema';

/**
 * Webhook URLs kept before they were sealed at rest (lib/store/at-rest.ts) are sealed once, at start, when the
 * process has a key: each is read and written again, which seals it. Returns how many were sealed.
 */
export async function sealWebhookUrls(db: Kysely<Database>): Promise<number> {
  let sealed = 0;
  const hooks = await db.selectFrom('alert_webhooks').select(['id', 'url']).execute();
  for (const row of hooks.filter((r) => !isSealed(r.url))) {
    const hook = await getWebhook(db, row.id);
    if (hook) await saveWebhook(db, hook);
    sealed += 1;
  }
  const deliveries = await db
    .selectFrom('deliveries')
    .select(['id', 'destination'])
    .where(sql<boolean>`destination like ${'%"type":"webhook"%'}`)
    .execute();
  for (const row of deliveries) {
    const url = (JSON.parse(row.destination) as { url?: unknown }).url;
    if (typeof url !== 'string' || isSealed(url)) continue;
    const delivery = await findDelivery(db, row.id);
    if (delivery) await updateDelivery(db, row.id, { destination: delivery.destination }, delivery.updatedAt);
    sealed += 1;
  }
  return sealed;
}
