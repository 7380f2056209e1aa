import { afterEach, describe, expect, it } from 'vitest';
import { maskedWebhookUrl } from '@/lib/deliveries/targets';
import { getWebhook, saveWebhook, type AlertWebhook } from '@/lib/store/alert-channels';
import { setAtRestKey } from '@/lib/store/at-rest';
import { findDelivery } from '@/lib/store/deliveries';
import { openStore, type Store } from '@/lib/store/open';
import { sealWebhookUrls } from '@/lib/store/seal-urls';
import { deliveryMaker } from '../support/new-delivery';
import { storeEngines } from '../support/store-engines';

/** Webhook URLs (whose paths are credentials) sealed in the store, both engines: never in clear at rest, bound to their row. */

const KEY = 'an-at-rest-test-key-0123456789abcdef';
const SECRET_PATH = '/services/T0001/B0002/xoxb-secret-path-token';
const URL_ = `https://hooks.chat.example${SECRET_PATH}?channel=ops`;
const hook = (id: string, url = URL_): AlertWebhook => ({
  id,
  name: `Hook ${id}`,
  url,
  format: 'chat',
  kinds: ['sport.down'],
  secret: null,
  createdBy: 'boss@example.com',
  createdAt: '2026-11-27T00:00:00Z',
  updatedAt: '2026-11-27T00:00:00Z',
});

describe.each(storeEngines())('webhook URLs at rest on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    setAtRestKey(null);
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  async function fresh() {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    return store;
  }
  const raw = async (store: Store) =>
    JSON.stringify([
      await store.db.selectFrom('alert_webhooks').selectAll().execute(),
      await store.db.selectFrom('deliveries').selectAll().execute(),
    ]);

  it('are sealed for their own row, read back as given, and shown by their origin alone when another key sealed them', async () => {
    const store = await fresh();
    setAtRestKey(KEY);
    await saveWebhook(store.db, hook('wh_00000000000a'));
    const make = deliveryMaker(
      () => store.db,
      () => ({ name: 'To chat', kind: 'picks', format: 'json', filters: {}, destination: { type: 'webhook', url: URL_ } }),
      { now: Date.now() },
    );
    const delivery = await make();
    expect(await raw(store)).not.toContain('xoxb-secret-path-token');
    expect(await raw(store)).toContain('sealed:v1:https%3A//hooks.chat.example:');
    expect((await getWebhook(store.db, 'wh_00000000000a'))?.url).toBe(URL_);
    expect((await findDelivery(store.db, delivery.id))?.destination.url).toBe(URL_);

    // Copied into another row, it does not open there; under another key, neither: shown by its origin only.
    const sealed = (await store.db.selectFrom('alert_webhooks').select('url').executeTakeFirstOrThrow()).url;
    await saveWebhook(store.db, hook('wh_00000000000b', 'https://other.example/x'));
    await store.db.updateTable('alert_webhooks').set({ url: sealed }).where('id', '=', 'wh_00000000000b').execute();
    const moved = (await getWebhook(store.db, 'wh_00000000000b'))!.url;
    expect(moved).not.toContain('xoxb');
    expect(maskedWebhookUrl(moved)).toBe('https://hooks.chat.example/… (sealed under another key)');
    setAtRestKey('another-key-0123456789abcdef-0123456789');
    expect((await getWebhook(store.db, 'wh_00000000000a'))!.url).not.toContain('xoxb');
  });

  it('kept in clear before sealing (or without a key), are sealed once at a start with the key', async () => {
    const store = await fresh();
    setAtRestKey(null);
    await saveWebhook(store.db, hook('wh_00000000000c'));
    const make = deliveryMaker(
      () => store.db,
      () => ({ name: 'Old chat', kind: 'picks', format: 'json', filters: {}, destination: { type: 'webhook', url: URL_ } }),
      { now: Date.now() },
    );
    const delivery = await make();
    expect(await raw(store)).toContain('xoxb-secret-path-token');
    setAtRestKey(KEY);
    expect(await sealWebhookUrls(store.db)).toBe(2);
    expect(await raw(store)).not.toContain('xoxb-secret-path-token');
    expect(await sealWebhookUrls(store.db)).toBe(0); // once
    expect((await getWebhook(store.db, 'wh_00000000000c'))?.url).toBe(URL_);
    expect((await findDelivery(store.db, delivery.id))?.destination.url).toBe(URL_);
  });
});
