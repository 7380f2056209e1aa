import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce, type FeedSettings } from '@/lib/changes/poller';
import { readEventsAfter } from '@/lib/events/read';
import type { PickEvent } from '@/lib/events/shape';
import { createPicksClient } from '@/lib/picks-api/client';
import { alertsIn } from '@/lib/store/alerts';
import { claimFeedLease } from '@/lib/store/change-feed';
import { findTokenWebhook, insertTokenWebhook, webhookAttempts } from '@/lib/store/token-webhooks';
import { insertToken, revokeToken, type ApiToken } from '@/lib/store/tokens';
import { putUser } from '@/lib/store/users';
import { ownerOf } from '@/lib/alerts/subscriptions';
import { hashToken } from '@/lib/tokens/access';
import { checkEndpoint, newEndpoint, newSecret, openEndpointSecret } from '@/lib/webhooks/input';
import { sendMessage, testMessage } from '@/lib/webhooks/send';
import { sendDue } from '@/lib/webhooks/start';
import type { QuotaGate } from '@/lib/webhooks/quota';
import { endpointView } from '@/lib/webhooks/view';
import { webhookChecker } from '../support/openapi-check';
import { attemptExchange } from '@/lib/store/token-logs';
import { DISABLE_AFTER_MS, GIVE_UP_MS, type SenderContext } from '@/lib/webhooks/worker';
import { openStore, type Store } from '@/lib/store/open';
import type { TokenScope } from '@/lib/vocabulary/tokens';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { storeEngines } from '../support/store-engines';

/**
 * Consumer webhooks against the sandbox over real HTTP, on both store engines, sent to a receiver on loopback that
 * checks every signature with the Standard Webhooks library's own `verify`: each event of the token's view, in
 * order, once; a receiver down for a while gets all of it in order once back; an event refused for a day is given
 * up and the endpoint goes on; one failing for 3 days is disabled and its owner alerted; a revoked token sends
 * nothing; the address that was checked is the one connected to; a secret never follows a URL.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
const SECRET_KEY = 'a-delivery-secret-key-for-tests-only';
const settings: FeedSettings = { daysBack: 7, daysAhead: 14, pollMs: 300_000 };
const everything: TokenScope = { content: ['picks', 'results', 'changes'], sports: [], leagues: [], from: null, to: null };
let sandbox: Sandbox;
let baseUrl: string;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  verified: { type: string; data: PickEvent } | null;
}

/** A receiver: answers `status` (200: it checks the signature first, and refuses one that does not check). */
async function receiver(secret: string) {
  const state = { status: 200, answer: '', requests: 0, accepted: [] as Received[] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests += 1;
      const body = Buffer.concat(chunks).toString('utf8');
      if (state.status !== 200) return res.writeHead(state.status, { 'x-receiver': 'busy' }).end(state.answer);
      try {
        const verified = new Webhook(secret).verify(body, req.headers as Record<string, string>) as Received['verified'];
        state.accepted.push({ headers: req.headers, body, verified });
        res.writeHead(204).end();
      } catch {
        res.writeHead(400).end('bad signature');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/picks?k=1`, close: () => server.close() };
}

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 6000 });
  baseUrl = await sandbox.listen(0);
});
afterAll(() => sandbox.close());

describe.each(storeEngines())('consumer webhooks on $name', (engine) => {
  const opened: Store[] = [];
  const servers: Array<() => void> = [];
  afterEach(async () => {
    sandbox.controls.setNow(T0);
    servers.splice(0).forEach((close) => close());
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  async function setUp(scope: TokenScope = everything) {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    expect(await claimFeedLease(store.db, 'a', 30 * 86_400_000, T0)).toBe(true);
    const poll = () =>
      pollOnce({
        db: store.db,
        walk: (f, call) => createPicksClient({ baseUrl, apiKey: KEY, retry: { maxRetries: 0 } }).walkPicks(f, call),
        instance: 'a',
        settings,
        now: () => sandbox.controls.now(),
      });
    expect(await poll()).toMatchObject({ outcome: 'complete', entries: 0 });
    await putUser(store.db, { email: 'ed@example.com', role: 'editor', passwordHash: 'x' });
    const now = Date.now();
    const token: ApiToken = {
      id: 'tok_0123456789ab',
      name: 'push',
      owner: 'ed@example.com',
      ownerSinceMs: now,
      prefix: 'pvt_abcdef',
      scope,
      expiresMs: now + 30 * 86_400_000,
      ratePerMinute: 60,
      dailyRecords: 1_000_000,
      createdMs: now,
      createdBy: 'ed@example.com',
      updatedMs: now,
      revokedMs: null,
      revokedBy: null,
    };
    await insertToken(store.db, token, hashToken('pvt_webhooks-test'));
    const secret = newSecret();
    const target = await receiver(secret);
    servers.push(target.close);
    const checked = await checkEndpoint({ url: target.url, secret }, null, 'twh_000000000001', {
      secretKey: SECRET_KEY,
      allowPrivate: true,
    });
    const hook = newEndpoint('twh_000000000001', token.id, checked, 'ed@example.com', 0);
    await insertTokenWebhook(store.db, hook);
    // The token's quota as the store would count it, in memory: `left` records, each accepted one counted.
    const quota = { left: Number.POSITIVE_INFINITY, counted: 0 };
    const gate: QuotaGate = {
      take: async () =>
        quota.left > 0
          ? ((quota.left -= 1), { ok: true, settle: async (accepted) => void (accepted || (quota.left += 1)) })
          : { ok: false, waitMs: 3_600_000, why: 'its token read its records for today (UTC): it sends again from midnight UTC' },
      count: () => void (quota.counted += 1),
    };
    const context = (at: number): SenderContext => ({
      secretKey: SECRET_KEY,
      allowPrivate: true,
      retentionDays: 30,
      now: () => at,
      quota: gate,
    });
    const view = async () => (await readEventsAfter(store.db, scope, 0, 100_000, null)).events;
    return { store, poll, token, hook, target, context, view, quota, secret };
  }

  it('sends each event of the token’s view in order, once, signed so the receiver’s library accepts it; a receiver down for a while gets all of it once back', async () => {
    const probe = await setUp();
    sandbox.controls.setNow(T0 + 6 * 3_600_000);
    await probe.poll();
    const league = (await probe.view()).find((e) => e.record?.league)!.record!.league as string;
    opened.splice(0).forEach((s) => void s.close());
    // A token narrowed to one league: only its events, never another league's.
    sandbox.controls.setNow(T0);
    const { store, poll, target, context, view, secret } = await setUp({ ...everything, leagues: [league] });
    sandbox.controls.setNow(T0 + 6 * 3_600_000);
    await poll();
    const mine = await view();
    expect(mine.length).toBeGreaterThan(1);
    target.state.status = 503;
    target.state.answer = 'busy '.repeat(2_000);
    const t = Date.now();
    expect(await sendDue(store, context(t))).toBe(0);
    expect(target.state.requests).toBe(1);
    // Not due again before its backoff (5 s): nothing sent.
    await sendDue(store, context(t + 1_000));
    expect(target.state.requests).toBe(1);
    target.state.status = 200;
    expect(await sendDue(store, context(t + 6_000))).toBe(mine.length);
    const got = target.state.accepted.map((r) => r.verified!);
    expect(got.map((m) => m.data.seq)).toEqual(mine.map((e) => e.seq));
    expect(got.map((m) => m.data.hash)).toEqual(mine.map((e) => e.hash));
    expect(got.every((m) => m.data.record?.league === league || m.data.record === null)).toBe(true);
    expect(target.state.accepted.map((r) => r.headers['webhook-id'])).toEqual(mine.map((e) => `evt_${e.seq}`));
    // Each body is what the OpenAPI document's `webhooks` say a message of its type is.
    const { v1Document } = await import('@/lib/api-v1/openapi');
    const check = webhookChecker(v1Document());
    expect(target.state.accepted.map((r) => check(JSON.parse(r.body) as { type: string }))).toEqual(mine.map(() => null));
    // Linked as the stream links them: the chain is whole.
    for (let i = 1; i < got.length; i += 1) expect(got[i]!.data.prev).toBe(got[i - 1]!.data.hash);
    const attempts = await webhookAttempts(store.db, 'twh_000000000001', 1_000);
    expect(attempts.filter((a) => a.outcome === 'failed').map((a) => [a.seq, a.code])).toEqual([[mine[0]!.seq, 503]]);
    // Each attempt keeps what it sent and what came back: the refused one the receiver's answer, its start only.
    const refusedOne = attempts.find((a) => a.outcome === 'failed')!;
    const kept = (await attemptExchange(store.db, 'twh_000000000001', refusedOne.id))!;
    expect(kept.request.body).toBe(target.state.accepted[0]!.body);
    expect(Object.keys(kept.request.headers)).toEqual([
      'Content-Type',
      'User-Agent',
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    expect(kept.request.headers['webhook-signature']).toMatch(/^v1,/);
    expect(JSON.stringify(kept)).not.toContain(secret.slice(6));
    expect(kept.response).toMatchObject({ status: 503, bytes: 10_000, headers: { 'x-receiver': 'busy' } });
    expect(kept.response!.body).toBe('busy '.repeat(2_000).slice(0, 4_096));
    const delivered = (await attemptExchange(store.db, 'twh_000000000001', attempts.find((a) => a.outcome === 'delivered')!.id))!;
    expect(delivered.response).toMatchObject({ status: 204, body: '' });
    expect(attempts.filter((a) => a.outcome === 'delivered')).toHaveLength(mine.length);
    // What comes next follows, after the last one taken.
    sandbox.controls.setNow(T0 + 12 * 3_600_000);
    await poll();
    const more = (await view()).slice(mine.length);
    await sendDue(store, context(t + 10_000));
    expect(target.state.accepted.map((r) => r.verified!.data.seq)).toEqual([...mine, ...more].map((e) => e.seq));
    expect((await findTokenWebhook(store.db, 'twh_000000000001'))!.failingSinceMs).toBeNull();
  });

  it('gives an event up after a day of refusals and goes on; disables an endpoint failing for 3 days and alerts its owner', async () => {
    const { store, poll, target, context, view, token } = await setUp();
    sandbox.controls.setNow(T0 + 6 * 3_600_000);
    await poll();
    const events = await view();
    target.state.status = 500;
    const t = Date.now();
    await sendDue(store, context(t));
    await sendDue(store, context(t + GIVE_UP_MS));
    await sendDue(store, context(t + GIVE_UP_MS + 1));
    const attempts = await webhookAttempts(store.db, 'twh_000000000001', 100);
    expect(attempts.map((a) => [a.seq, a.outcome])).toEqual([
      [events[1]!.seq, 'failed'],
      [events[0]!.seq, 'gave up'],
      [events[0]!.seq, 'failed'],
    ]);
    expect((await findTokenWebhook(store.db, 'twh_000000000001'))!.cursor).toBe(events[0]!.seq);
    await sendDue(store, context(t + DISABLE_AFTER_MS));
    const hook = (await findTokenWebhook(store.db, 'twh_000000000001'))!;
    expect(hook.disabledMs).toBe(t + DISABLE_AFTER_MS);
    expect(hook.disabledReason).toMatch(/^every attempt failed for 3 days .*HTTP 500/);
    const alerts = (await alertsIn(store.db, 'held')).filter((a) => a.kind === 'token.webhook-disabled');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.reason).toContain('twh_000000000001');
    expect(alerts[0]!.reason).not.toContain('/hooks/picks');
    expect(await ownerOf(store.db, alerts[0]!)).toBe(token.owner);
    // Disabled: nothing more is tried.
    target.state.status = 200;
    const before = target.state.requests;
    await sendDue(store, context(t + DISABLE_AFTER_MS + 60_000));
    expect(target.state.requests).toBe(before);
  });

  it('counts each event accepted against the token’s quota, and waits, saying why, once it is used up', async () => {
    const { store, poll, target, context, view, quota } = await setUp();
    sandbox.controls.setNow(T0 + 6 * 3_600_000);
    await poll();
    const events = await view();
    target.state.status = 503;
    quota.left = 3;
    const t = Date.now();
    await sendDue(store, context(t));
    // Refused: the record is given back.
    expect(quota.left).toBe(3);
    target.state.status = 200;
    expect(await sendDue(store, context(t + 6_000))).toBe(3);
    expect(quota.counted).toBe(3);
    expect(target.state.accepted.map((r) => r.verified!.data.seq)).toEqual(events.slice(0, 3).map((e) => e.seq));
    const hook = (await findTokenWebhook(store.db, 'twh_000000000001'))!;
    expect(hook).toMatchObject({ cursor: events[2]!.seq, nextMs: t + 6_000 + 3_600_000 });
    expect(endpointView(hook, [], events.at(-1)!.seq, null, t + 7_000)).toMatchObject({
      state: 'paused',
      why: expect.stringContaining('sends again from midnight UTC'),
    });
    // Not before then.
    expect(await sendDue(store, context(t + 60_000))).toBe(0);
    quota.left = Number.POSITIVE_INFINITY;
    expect(await sendDue(store, context(t + 6_000 + 3_600_000))).toBe(events.length - 3);
    expect((await findTokenWebhook(store.db, 'twh_000000000001'))!.pausedReason).toBeNull();
  });

  it('sends nothing for a revoked token', async () => {
    const { store, poll, target, context, token } = await setUp();
    sandbox.controls.setNow(T0 + 6 * 3_600_000);
    await poll();
    await revokeToken(store.db, token.id, 'ed@example.com', Date.now());
    expect(await sendDue(store, context(Date.now()))).toBe(0);
    expect(target.state.requests).toBe(0);
  });

  it('sends nothing with another DELIVERY_SECRET_KEY than the one its secret was saved with, and says why', async () => {
    const { store, poll, target, context } = await setUp();
    sandbox.controls.setNow(T0 + 6 * 3_600_000);
    await poll();
    const t = Date.now();
    expect(await sendDue(store, { ...context(t), secretKey: 'another-delivery-secret-key-0123456789' })).toBe(0);
    expect(target.state.requests).toBe(0);
    const hook = (await findTokenWebhook(store.db, 'twh_000000000001'))!;
    expect(hook).toMatchObject({ nextMs: t + 60_000, pausedReason: expect.stringContaining('another DELIVERY_SECRET_KEY') });
    expect(endpointView(hook, [], 100, null, t + 1_000).state).toBe('paused');
  });

  it('connects to the address it checked, refuses private ones unless allowed, and binds the secret to the endpoint and its URL', async () => {
    const { store, target, hook } = await setUp();
    const secret = openEndpointSecret(hook, SECRET_KEY);
    const port = new URL(target.url).port;
    // A name no DNS knows: the check answers loopback, and the connection goes there, not to a second lookup.
    const resolver = async () => [{ address: '127.0.0.1', family: 4 as const }];
    const pinned = await sendMessage(`http://receiver.invalid:${port}/hooks`, secret, testMessage(hook.id, 'ed', Date.now()), {
      allowPrivate: true,
      resolver,
    });
    expect(pinned).toMatchObject({ outcome: 'delivered', code: 204 });
    expect(target.state.accepted.at(-1)!.verified!.type).toBe('webhook.test');
    const { v1Document } = await import('@/lib/api-v1/openapi');
    expect(webhookChecker(v1Document())(JSON.parse(target.state.accepted.at(-1)!.body) as { type: string })).toBeNull();
    const refused = await sendMessage(`https://receiver.invalid:${port}/hooks`, secret, testMessage(hook.id, 'ed', Date.now()), {
      allowPrivate: false,
      resolver,
    });
    expect(refused).toMatchObject({ outcome: 'failed', code: null });
    expect(refused.problem).toMatch(/^receiver\.invalid is not on the public internet \(it resolves to a private address\)/);
    await expect(
      checkEndpoint({ url: target.url, kinds: ['pick.nope'] }, null, 'twh_000000000002', { secretKey: SECRET_KEY, allowPrivate: false }),
    ).rejects.toMatchObject({
      details: {
        url: 'must be an https URL (plain http only to a loopback or private target, with DELIVERY_ALLOW_PRIVATE_TARGETS=1)',
        kinds: expect.stringContaining('"pick.nope" is not an event type'),
      },
    });
    // Moved without its secret: refused, naming the field; the sealed secret opens for its own endpoint and URL only.
    const stored = (await findTokenWebhook(store.db, hook.id))!;
    await expect(
      checkEndpoint({ url: 'http://127.0.0.1:9/elsewhere' }, stored, hook.id, { secretKey: SECRET_KEY, allowPrivate: true }),
    ).rejects.toMatchObject({
      details: { secret: expect.stringMatching(/^is bound to the URL it was saved with/) },
    });
    expect(() => openEndpointSecret({ ...stored, url: 'http://127.0.0.1:9/elsewhere' }, SECRET_KEY)).toThrow(/could not be opened/);
    expect(() => openEndpointSecret({ ...stored, id: 'twh_000000000009' }, SECRET_KEY)).toThrow(/could not be opened/);
    await expect(
      checkEndpoint({ url: target.url, secret: 'short' }, null, 'twh_000000000003', { secretKey: SECRET_KEY, allowPrivate: true }),
    ).rejects.toMatchObject({
      details: { secret: expect.stringContaining('whsec_') },
    });
  });
});
