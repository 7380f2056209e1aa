import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@/lib/store/open';
import type { ApiToken } from '@/lib/store/tokens';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { pollSandbox, portalInProcess, testToken } from '../support/portal-in-process';

/**
 * The fourth security review's webhook findings, through the portal's own handlers (lib/http/webhooks.ts, what
 * the route handlers call) against the sandbox over real HTTP on the embedded store, sending to a receiver on
 * loopback: a resend pays the token's rate and quota and is refused past them; tests and resends are limited per
 * person and per webhook; a webhook set up by someone else waits for a token's new owner, who alone sees its whole
 * URL and confirms it; one whose maker may no longer act waits too.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
const ADMIN = { email: 'ada@example.com', role: 'admin' as const };
const LEAVER = { email: 'leo@example.com', role: 'editor' as const };
const HEIR = { email: 'hana@example.com', role: 'editor' as const };
let sandbox: Sandbox;
let store: Store;
const received: string[] = [];
let receiverUrl = '';
let closeReceiver = () => undefined as void;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** What the route handler answers: its error as withRole turns it into the portal's JSON error. */
async function answer(work: Promise<Response> | Response) {
  const { toAppError } = await import('@/lib/errors');
  const res = await Promise.resolve(work).catch((error: unknown) => toAppError(error).toResponse());
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: (await res.json()) as Json };
}
const post = (body: unknown) =>
  new Request('http://portal.test/x', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 3000 });
  const baseUrl = await sandbox.listen(0);
  store = await portalInProcess(baseUrl, KEY, {
    EVENTS_RETENTION_DAYS: '30',
    DELIVERY_SECRET_KEY: 'webhook-review-secret-key-0123456789',
    DELIVERY_ALLOW_PRIVATE_TARGETS: '1',
    MAX_EXPORTS_PER_USER: '1',
  });
  const poll = () => pollSandbox(store, baseUrl, KEY, () => sandbox.controls.now());
  await poll();
  sandbox.controls.setNow(T0 + 6 * 3_600_000);
  await poll();
  const { putUser } = await import('@/lib/store/users');
  for (const person of [ADMIN, LEAVER, HEIR]) await putUser(store.db, { ...person, passwordHash: 'x' });
  // The editors' ceilings, as an admin sets them (no token of these tests needs more).
  const { writeMeta } = await import('@/lib/store/meta');
  await writeMeta(store.db, 'token-ceilings', JSON.stringify({ ratePerMinute: 50, dailyRecords: 5 }));
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/leaver/hook?k=secret-path`;
  closeReceiver = () => void server.close();
});

afterAll(async () => {
  closeReceiver();
  await (await import('@/lib/store')).closeStore();
  sandbox.close();
});

const bearer = new Map<string, string>();
async function tokenOf(owner: string, limits: { ratePerMinute?: number; dailyRecords?: number } = {}): Promise<ApiToken> {
  const made = await testToken(store, owner, limits);
  bearer.set(made.token.id, made.secret);
  return made.token;
}

async function webhookOf(user: { email: string; role: string }, token: ApiToken): Promise<string> {
  const { endpointsResponse } = await import('@/lib/http/webhooks');
  const res = await answer(endpointsResponse(post({ url: receiverUrl }), user as never, token.id));
  expect(res.status).toBe(201);
  return res.json.id as string;
}

const lastSeq = async () => (await import('@/lib/store/events')).lastEventSeq(store.db);
const actions = async (action: string) => (await (await import('@/lib/store/audit')).latestAudit(store.db, { action }, 500)).length;

describe('a resend is a delivery: it pays the token’s rate and quota', () => {
  it('sends a resent event for one record and one request, and refuses it (429) once the quota is spent, sending nothing', async () => {
    const { resendResponse } = await import('@/lib/http/webhooks');
    const { reserveRecords } = await import('@/lib/tokens/limits');
    const token = await tokenOf(LEAVER.email, { dailyRecords: 3 });
    const hook = await webhookOf(LEAVER, token);
    const seq = await lastSeq();
    const before = received.length;
    const sent = await answer(resendResponse(post({ event: seq }), LEAVER, token.id, hook));
    expect(sent.status).toBe(200);
    expect(sent.json.attempt).toMatchObject({ outcome: 'delivered', seq, trigger: 'resend' });
    expect(received.slice(before)).toEqual([`evt_${seq}`]);
    // One record of three taken: two are left, and then none.
    expect((await reserveRecords(token, 5)).granted).toBe(2);
    const refused = await answer(resendResponse(post({ event: seq }), LEAVER, token.id, hook));
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: 'QUOTA_SPENT', message: expect.stringContaining('its 3 records for today') });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    const range = await answer(resendResponse(post({ after: seq - 2 }), LEAVER, token.id, hook));
    expect(range.status).toBe(429);
    expect(range.json.error.code).toBe('QUOTA_SPENT');
    expect(received.slice(before)).toEqual([`evt_${seq}`]);
  });

  it('takes a request of the token’s rate for each resend and test, refused past it', async () => {
    const { resendResponse, testResponse } = await import('@/lib/http/webhooks');
    const token = await tokenOf(LEAVER.email, { ratePerMinute: 2 });
    const hook = await webhookOf(LEAVER, token);
    const seq = await lastSeq();
    expect((await answer(testResponse(LEAVER, token.id, hook))).status).toBe(200);
    expect((await answer(resendResponse(post({ event: seq }), LEAVER, token.id, hook))).status).toBe(200);
    const refused = await answer(resendResponse(post({ event: seq }), LEAVER, token.id, hook));
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: 'QUOTA_SPENT', message: expect.stringContaining('2 requests a minute') });
  });
});

describe('tests and resends are limited per person and per webhook', () => {
  it('answers 429 with Retry-After past five test events a minute to one webhook, sending and auditing nothing more', async () => {
    const { testResponse } = await import('@/lib/http/webhooks');
    const token = await tokenOf(HEIR.email);
    const hook = await webhookOf(HEIR, token);
    const audited = await actions('token.webhook.test');
    const before = received.length;
    const answers = await Promise.all(Array.from({ length: 8 }, async () => answer(testResponse(HEIR, token.id, hook))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(3);
    expect(refused[0]!.json.error.code).toBe('TOO_MANY_TRIES');
    expect(Number(refused[0]!.retryAfter)).toBeGreaterThan(0);
    expect(received.length - before).toBe(5);
    expect((await actions('token.webhook.test')) - audited).toBe(5);
  });
});

describe('a leaver’s webhook stops receiving', () => {
  it('waits when its token is given to another owner, until the new owner confirms it seeing its whole URL', async () => {
    const { tokenResponse } = await import('@/lib/http/tokens');
    const { confirmResponse, endpointsResponse, testResponse } = await import('@/lib/http/webhooks');
    const { sendDue } = await import('@/lib/webhooks/start');
    const { findTokenWebhook } = await import('@/lib/store/token-webhooks');
    const token = await tokenOf(LEAVER.email);
    const hook = await webhookOf(LEAVER, token);
    const { updateUser } = await import('@/lib/store/users');
    await updateUser(store.db, LEAVER.email, { disabled: true });
    const patch = new Request('http://portal.test/x', {
      method: 'PATCH',
      body: JSON.stringify({ owner: HEIR.email }),
      headers: { 'content-type': 'application/json' },
    });
    expect((await answer(tokenResponse(patch, ADMIN, token.id))).status).toBe(200);
    expect(await actions('token.webhook.await')).toBeGreaterThanOrEqual(1);
    // The feed moves on: nothing goes to the leaver's URL.
    const { moveCursorBack } = { moveCursorBack: await findTokenWebhook(store.db, hook) };
    expect(moveCursorBack!.cursor).toBe(await lastSeq());
    const { saveTokenWebhook } = await import('@/lib/store/token-webhooks');
    await saveTokenWebhook(store.db, { ...moveCursorBack!, cursor: moveCursorBack!.cursor - 3, updatedMs: Date.now() + 1 }, true);
    const before = received.length;
    const context = { secretKey: process.env.DELIVERY_SECRET_KEY!, allowPrivate: true, retentionDays: 30 };
    await sendDue(store, context);
    expect(received.length).toBe(before);
    const asAdmin = (await answer(endpointsResponse(new Request('http://portal.test/x'), ADMIN, token.id))).json.data[0];
    expect(asAdmin).toMatchObject({
      state: 'unconfirmed',
      wholeUrl: null,
      why: expect.stringContaining(`until ${HEIR.email} confirms it`),
    });
    expect(JSON.stringify(asAdmin)).not.toContain('secret-path');
    const asHeir = (await answer(endpointsResponse(new Request('http://portal.test/x'), HEIR, token.id))).json.data[0];
    expect(asHeir).toMatchObject({ state: 'unconfirmed', wholeUrl: receiverUrl, confirmedBy: LEAVER.email });
    expect((await answer(testResponse(HEIR, token.id, hook))).json.error.details.webhook).toMatch(/cannot send now/);
    // Only the owner confirms; then it sends what it was owed, in order.
    expect((await answer(confirmResponse(ADMIN, token.id, hook))).status).toBe(403);
    const confirmed = await answer(confirmResponse(HEIR, token.id, hook));
    expect(confirmed.json).toMatchObject({ state: 'delivering', confirmedBy: HEIR.email, wholeUrl: null });
    expect(await actions('token.webhook.confirm')).toBe(1);
    await sendDue(store, context);
    expect(received.length - before).toBe(3);
  });

  it('waits when the admin who set it up on someone’s token may no longer act', async () => {
    const { endpointsResponse } = await import('@/lib/http/webhooks');
    const { putUser, updateUser } = await import('@/lib/store/users');
    const other = { email: 'otto@example.com', role: 'admin' as const };
    await putUser(store.db, { ...other, passwordHash: 'x' });
    const token = await tokenOf(HEIR.email);
    await webhookOf(other, token);
    const view = async () => (await answer(endpointsResponse(new Request('http://portal.test/x'), HEIR, token.id))).json.data[0];
    expect((await view()).state).toBe('delivering');
    await updateUser(store.db, other.email, { role: 'viewer' });
    expect(await view()).toMatchObject({ state: 'unconfirmed', why: expect.stringContaining('may no longer act'), wholeUrl: receiverUrl });
  });
});

describe('a receipt is paid for', () => {
  it('costs a record of the daily quota, and is refused (429) past it without being worked out', async () => {
    const { serveV1OnNext } = await import('@/lib/api-v1/http');
    const token = await tokenOf(HEIR.email, { dailyRecords: 1 });
    const last = await lastSeq();
    const receipt = () =>
      answer(
        serveV1OnNext(
          new Request(`http://portal.test/api/v1/events/receipt?from=${last - 9}&to=${last}`, {
            headers: { authorization: `Bearer ${bearer.get(token.id)}` },
          }),
        ),
      );
    const one = await receipt();
    expect(one.status).toBe(200);
    expect(one.json.receipt).toMatchObject({ from: last - 9, to: last });
    const spent = await receipt();
    expect(spent.status).toBe(429);
    expect(spent.json.error).toMatchObject({ code: 'QUOTA_EXCEEDED', message: expect.stringContaining('its 1 records for today') });
  });
});

describe('limits above the ceilings do not survive a demotion', () => {
  it('caps an admin’s token at the editors’ ceilings once its owner is an editor, at request time', async () => {
    const { reserveRecords } = await import('@/lib/tokens/limits');
    const { serveV1OnNext } = await import('@/lib/api-v1/http');
    const { putUser, updateUser } = await import('@/lib/store/users');
    const { forgetAccount } = await import('@/lib/auth/accounts');
    const boss = { email: 'bo@example.com', role: 'admin' as const };
    await putUser(store.db, { ...boss, passwordHash: 'x' });
    const token = await tokenOf(boss.email, { ratePerMinute: 600, dailyRecords: 1_000 });
    const me = async () =>
      (
        await answer(
          serveV1OnNext(new Request('http://portal.test/api/v1/me', { headers: { authorization: `Bearer ${bearer.get(token.id)}` } })),
        )
      ).json.token;
    expect(await me()).toMatchObject({ ratePerMinute: 600, dailyRecords: 1_000 });
    const asAdmin = await reserveRecords(token, 10);
    expect(asAdmin.granted).toBe(10);
    await asAdmin.settle(0);
    await updateUser(store.db, boss.email, { role: 'editor' });
    forgetAccount(boss.email);
    expect(await me()).toMatchObject({ ratePerMinute: 50, dailyRecords: 5 });
    expect((await reserveRecords(token, 10)).granted).toBe(5);
    const spent = await answer(
      serveV1OnNext(
        new Request('http://portal.test/api/v1/picks?limit=1', { headers: { authorization: `Bearer ${bearer.get(token.id)}` } }),
      ),
    );
    expect(spent.status).toBe(429);
    expect(spent.json.error).toMatchObject({ code: 'QUOTA_EXCEEDED', message: expect.stringContaining('its 5 records') });
  });
});

describe('a connection test is limited', () => {
  it('answers 429 past five tests a minute of one server, auditing nothing more', async () => {
    const { insertDelivery } = await import('@/lib/store/deliveries');
    const { testResponse } = await import('@/lib/http/deliveries');
    const { sealSecret, secretBinding } = await import('@/lib/deliveries/secrets');
    const destination = {
      type: 'postgres' as const,
      host: '127.0.0.1',
      port: 9,
      database: 'partner',
      user: 'loader',
      ssl: 'disable',
      schema: 's',
      table: 't',
    };
    await insertDelivery(store.db, {
      id: 'dlv_00000000000000aa',
      name: 'Warehouse',
      kind: 'picks',
      format: 'jsonl',
      filters: {},
      schedule: '0 6 * * *',
      destination,
      secret: sealSecret('{"password":"pw"}', process.env.DELIVERY_SECRET_KEY!, secretBinding(destination)!),
      createdBy: HEIR.email,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      lastDueMs: Date.now(),
    });
    const audited = await actions('delivery.test');
    const answers = [];
    for (let i = 0; i < 7; i += 1) answers.push(await answer(testResponse('dlv_00000000000000aa', HEIR)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(answers[0]!.json.steps.map((s: { step: string }) => s.step)).toEqual(['address', 'connect']);
    expect(answers[5]!.json.error.code).toBe('TOO_MANY_TRIES');
    expect((await actions('delivery.test')) - audited).toBe(5);
    // Paused without its password: the stored destination goes back to the check as it was given, its secret kept.
    const { patchResponse } = await import('@/lib/http/deliveries');
    const { findDelivery } = await import('@/lib/store/deliveries');
    const before = (await findDelivery(store.db, 'dlv_00000000000000aa'))!;
    const paused = await answer(
      patchResponse(
        'dlv_00000000000000aa',
        new Request('http://portal.test/x', { method: 'PATCH', body: '{"paused":true}', headers: { 'content-type': 'application/json' } }),
        HEIR,
      ),
    );
    expect(paused.status, JSON.stringify(paused.json)).toBe(200);
    const after = (await findDelivery(store.db, 'dlv_00000000000000aa'))!;
    expect(after).toMatchObject({ paused: true, secret: before.secret, destination: before.destination });
  });

  it('counts webhook deliveries by their URL’s host: two of them to one server share its five tests', async () => {
    const { insertDelivery } = await import('@/lib/store/deliveries');
    const { testResponse } = await import('@/lib/http/deliveries');
    const { sealSecret, secretBinding } = await import('@/lib/deliveries/secrets');
    for (const [id, path] of [
      ['dlv_00000000000000ab', '/a'],
      ['dlv_00000000000000ac', '/b'],
    ] as const) {
      const destination = { type: 'webhook' as const, url: `http://127.0.0.1:9${path}` };
      await insertDelivery(store.db, {
        id,
        name: `Hook ${path}`,
        kind: 'picks',
        format: 'csv',
        filters: {},
        schedule: '0 6 * * *',
        destination,
        secret: sealSecret('s'.repeat(20), process.env.DELIVERY_SECRET_KEY!, secretBinding(destination)!),
        createdBy: HEIR.email,
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
        lastDueMs: Date.now(),
      });
    }
    // Another editor than the one above, whose ten tests a minute are spent: only the server's five count here.
    const tester = { email: 'ted@example.com', role: 'editor' as const };
    const statuses = [];
    for (const id of ['dlv_00000000000000ab', 'dlv_00000000000000ac', 'dlv_00000000000000ab', 'dlv_00000000000000ac'])
      for (let i = 0; i < 2; i += 1) statuses.push((await answer(testResponse(id, tester))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  });
});

describe('change-feed files take a walk slot', () => {
  it('refuses a second file of one person while the first is read (429 TOO_MANY_WALKS), and gives the slot back at its end', async () => {
    const { changesResponse } = await import('@/lib/http/changes');
    const download = () => changesResponse(new Request('http://portal.test/api/changes?format=jsonl'), HEIR, null);
    const first = await download();
    expect(first.status).toBe(200);
    const second = await answer(download());
    expect(second.status).toBe(429);
    expect(second.json.error.code).toBe('TOO_MANY_WALKS');
    expect((await first.text()).split('\n').filter(Boolean).length).toBeGreaterThan(1);
    let third = await download();
    for (let i = 0; i < 50 && third.status === 429; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      third = await download();
    }
    expect(third.status).toBe(200);
    await third.text();
  });
});

describe('the portal’s check of a file vouches only for what it made', () => {
  it('refuses a validly signed manifest that its sealed audit trail does not record, whatever its signing time', async () => {
    const { createHash } = await import('node:crypto');
    const { startSigning, signDocument } = await import('@/lib/proof/signer');
    const { MANIFEST_TYPE, toManifest } = await import('@/lib/audit/manifest');
    const { recordAudit } = await import('@/lib/audit/record');
    const { checkFileResponse } = await import('@/lib/proof/check');
    await startSigning(store);
    const body = 'id,sport\npk_1,Tennis\npk_2,Tennis\n';
    const sha256 = createHash('sha256').update(body).digest('hex');
    const entry = (await recordAudit({
      actor: HEIR.email,
      role: 'editor',
      action: 'export.picks',
      target: 'picks.csv',
      outcome: 'complete',
      records: 2,
      bytes: Buffer.byteLength(body),
      sha256,
    }))!;
    const check = async (file: string, manifest: unknown) => {
      const form = new FormData();
      form.set('file', new Blob([file]), 'picks.csv');
      form.set('jws', (await signDocument(manifest, MANIFEST_TYPE)).jws);
      const res = await answer(checkFileResponse(new Request('http://portal.test/api/proof/check', { method: 'POST', body: form })));
      return res.json as { ok: boolean; checks: { name: string; ok: boolean; detail: string }[] };
    };
    const made = toManifest(entry);
    const own = await check(body, made);
    expect(own.checks.find((c) => c.name === 'portal record')).toMatchObject({
      ok: true,
      detail: expect.stringContaining(`audit entry ${entry.seq}`),
    });
    expect(own.ok).toBe(true);
    // Another file under the same entry's name, signed with the portal's own key: every recipient's check holds.
    const other = 'id,sport\npk_9,Tennis\n';
    const forged = { ...made, records: 1, bytes: Buffer.byteLength(other), sha256: createHash('sha256').update(other).digest('hex') };
    const refused = await check(other, forged);
    expect(refused.checks.filter((c) => c.name !== 'portal record').every((c) => c.ok)).toBe(true);
    expect(refused.ok).toBe(false);
    expect(refused.checks.find((c) => c.name === 'portal record')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('records another file'),
    });
    const nowhere = await check(other, { ...forged, id: 99_999, audit: { seq: 99_999, hash: 'x' } });
    expect(nowhere.checks.find((c) => c.name === 'portal record')?.detail).toMatch(/has no entry 99999: it never made this file/);
  });
});
