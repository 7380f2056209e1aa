import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@/lib/store/open';
import type { Role } from '@/lib/vocabulary/roles';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { answerChecker } from '../support/openapi-check';
import { pollSandbox, portalInProcess, testToken } from '../support/portal-in-process';

/**
 * GET /api/find, the command palette's finder, through its handler in this process, with the index of the licensed
 * set filled by a poll of the sandbox over real HTTP: each role finds only what its pages show it — an admin
 * deliveries, tokens, webhooks, people and audit entries; an editor deliveries and their own tokens; a viewer
 * records alone — a webhook by its origin only; every wrong parameter named at once; the searches a person may
 * make a minute counted.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
let sandbox: Sandbox;
let store: Store;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 600 });
  const baseUrl = await sandbox.listen(0);
  store = await portalInProcess(baseUrl, KEY, { DELIVERY_SECRET_KEY: 'find-test-secret-key-0123456789abcdef' });
  await pollSandbox(store, baseUrl, KEY, () => sandbox.controls.now());
  const { putUser } = await import('@/lib/store/users');
  for (const [email, role] of [
    ['ada@example.com', 'admin'],
    ['ed@example.com', 'editor'],
    ['eve@example.com', 'editor'],
    ['vic@example.com', 'viewer'],
  ])
    await putUser(store.db, { email: email!, role: role!, passwordHash: 'x' });
  const { token } = await testToken(store, 'ed@example.com');
  await store.db.updateTable('api_tokens').set({ name: 'Kingfisher CMS' }).where('id', '=', token.id).execute();
  const { insertTokenWebhook } = await import('@/lib/store/token-webhooks');
  const now = Date.now();
  await insertTokenWebhook(store.db, {
    id: 'twh_00000000000f',
    tokenId: token.id,
    url: 'https://hooks.kingfisher.example/private-path?key=hush',
    kinds: ['pick.published'],
    secret: 'sealed',
    cursor: 0,
    attempts: 0,
    headFailedMs: null,
    failingSinceMs: null,
    nextMs: now,
    pausedReason: null,
    disabledMs: null,
    disabledReason: null,
    createdBy: 'ed@example.com',
    createdMs: now,
    confirmedBy: 'ed@example.com',
    confirmedMs: now,
    updatedMs: now,
  });
  const { insertDelivery } = await import('@/lib/store/deliveries');
  await insertDelivery(store.db, {
    id: 'dlv_0000000000000f01',
    name: 'Kingfisher warehouse',
    kind: 'picks',
    format: 'jsonl',
    filters: {},
    schedule: '0 6 * * *',
    destination: { type: 'sftp', host: 'sftp.example', port: 22, path: '/in' },
    secret: null,
    createdBy: 'ed@example.com',
    createdAt: new Date(now).toISOString(),
    updatedAt: new Date(now).toISOString(),
    lastDueMs: now,
  });
  const { appendAudit } = await import('@/lib/store/audit');
  await appendAudit(store.db, {
    actor: 'ed@example.com',
    role: 'editor',
    action: 'token.create',
    target: 'Kingfisher CMS',
    filters: null,
    outcome: 'complete',
    errorCode: null,
    records: null,
    bytes: null,
    sha256: null,
    durationMs: null,
    requestIds: [],
    address: null,
    licence: null,
  });
});

afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  sandbox.close();
});

async function find(email: string, role: Role, query: string) {
  const { findResponse } = await import('@/lib/http/find');
  const { portalDocument } = await import('@/lib/openapi/portal');
  const url = `http://portal.test/api/find?${query}`;
  const res = await findResponse(new Request(url), { email, role } as never);
  const json = (await res.json()) as Json;
  expect(answerChecker(portalDocument() as object)('GET', url, res.status, json)).toBeNull();
  return { status: res.status, json };
}
const kinds = (json: Json) => (json.groups as { kind: string }[]).map((g) => g.kind);
const labels = (json: Json, kind: string) =>
  ((json.groups as { kind: string; items: { label: string }[] }[]).find((g) => g.kind === kind)?.items ?? []).map((i) => i.label);

describe('GET /api/find', () => {
  it('finds for an admin a delivery, a token, its webhook by origin, a person and an audit entry by name', async () => {
    const { status, json } = await find('ada@example.com', 'admin', 'q=kingfisher');
    expect(status).toBe(200);
    expect(kinds(json)).toEqual(['delivery', 'token', 'webhook', 'audit']);
    expect(labels(json, 'delivery')).toEqual(['Kingfisher warehouse']);
    expect(labels(json, 'token')).toEqual(['Kingfisher CMS']);
    expect(labels(json, 'webhook')).toEqual(['https://hooks.kingfisher.example/…']);
    expect(labels(json, 'audit')).toEqual(['token.create by ed@example.com']);
    expect(JSON.stringify(json)).not.toMatch(/private-path|hush/);
    const people = await find('ada@example.com', 'admin', 'q=EVE%40example');
    expect(labels(people.json, 'person')).toEqual(['eve@example.com']);
    expect((people.json.groups as Json[])[0]!.items[0].href).toBe('/admin/users#user-eve%40example.com');
  });

  it('gives an editor the deliveries and only their own tokens and webhooks; a viewer records alone', async () => {
    expect(kinds((await find('ed@example.com', 'editor', 'q=kingfisher')).json)).toEqual(['delivery', 'token', 'webhook']);
    expect(kinds((await find('eve@example.com', 'editor', 'q=kingfisher')).json)).toEqual(['delivery']);
    expect(kinds((await find('vic@example.com', 'viewer', 'q=kingfisher')).json)).toEqual([]);
    expect(kinds((await find('vic@example.com', 'viewer', 'q=eve')).json)).toEqual([]);
    const [row] = await store.db.selectFrom('record_index').select(['pick_id']).limit(1).execute();
    const { indexedBodies } = await import('@/lib/store/record-index');
    const digest = (await store.db.selectFrom('record_index').select('digest').where('pick_id', '=', row!.pick_id).executeTakeFirst())!;
    const record = JSON.parse((await indexedBodies(store.db, [digest.digest])).get(digest.digest)!) as { homeTeam: string };
    const { json } = await find('vic@example.com', 'viewer', `q=${encodeURIComponent(record.homeTeam.toUpperCase())}`);
    expect(kinds(json)).toEqual(['record']);
    const items = (json.groups as Json[])[0]!.items as { label: string; href: string }[];
    expect(items.length).toBeGreaterThan(0);
    for (const item of items.filter((i) => i.href.startsWith('/picks/'))) expect(item.label).toContain(record.homeTeam);
  });

  it('names every wrong parameter at once, and counts the searches a person may make a minute', async () => {
    const wrong = await find('vic@example.com', 'viewer', `q=${'x'.repeat(101)}&colour=red`);
    expect(wrong.status).toBe(400);
    expect(Object.keys(wrong.json.error.details).sort()).toEqual(['colour', 'q']);
    expect((await find('vic@example.com', 'viewer', '')).json.error.details).toEqual({ q: 'is needed: the words to find' });
    const { takeAction, ACTION_RATES } = await import('@/lib/auth/action-rates');
    // Whatever ed has used this minute, the rest of the minute's searches (and no more than the rate holds).
    let taken = 0;
    for (; taken < ACTION_RATES.find.perPerson; taken += 1) {
      const spent = await takeAction('find', 'ed@example.com', 'ed@example.com').then(
        () => false,
        () => true,
      );
      if (spent) break;
    }
    expect(taken).toBeGreaterThan(ACTION_RATES.find.perPerson - 5);
    const refused = await find('ed@example.com', 'editor', 'q=kingfisher');
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('TOO_MANY_TRIES');
    expect((await find('eve@example.com', 'editor', 'q=kingfisher')).status).toBe(200);
  });
});
