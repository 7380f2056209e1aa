import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Store } from '@/lib/store/open';
import type { ApiToken } from '@/lib/store/tokens';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { pollSandbox, portalInProcess, testToken } from './portal-in-process';

/**
 * The fourth security review's portal (tests/contract/security-review-4*.test.ts): the portal's own handlers
 * in this process against the sandbox over real HTTP on the embedded store, three people, the editors' ceilings,
 * and a webhook receiver on loopback. Call it once at the top of a test file: it starts all of it before the
 * file's tests and stops it after.
 */

export const T0 = Date.parse('2026-11-20T12:00:00Z');
export const KEY = 'sandbox-full-key';
export const ADMIN = { email: 'ada@example.com', role: 'admin' as const };
export const LEAVER = { email: 'leo@example.com', role: 'editor' as const };
export const HEIR = { email: 'hana@example.com', role: 'editor' as const };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** What the route handler answers: its error as withRole turns it into the portal's JSON error. */
export async function answer(work: Promise<Response> | Response) {
  const { toAppError } = await import('@/lib/errors');
  const res = await Promise.resolve(work).catch((error: unknown) => toAppError(error).toResponse());
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: (await res.json()) as Json };
}
export const post = (body: unknown) =>
  new Request('http://portal.test/x', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

export function reviewPortal() {
  const portal = {
    store: undefined as unknown as Store,
    sandbox: undefined as unknown as Sandbox,
    receiverUrl: '',
    received: [] as string[],
  };
  let closeReceiver = () => undefined as void;
  beforeAll(async () => {
    const sandbox = (portal.sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 3000 }));
    const baseUrl = await sandbox.listen(0);
    const store = (portal.store = await portalInProcess(baseUrl, KEY, {
      EVENTS_RETENTION_DAYS: '30',
      DELIVERY_SECRET_KEY: 'webhook-review-secret-key-0123456789',
      DELIVERY_ALLOW_PRIVATE_TARGETS: '1',
      MAX_EXPORTS_PER_USER: '1',
    }));
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
        portal.received.push(String(req.headers['webhook-id']));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    portal.receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/leaver/hook?k=secret-path`;
    closeReceiver = () => void server.close();
  });

  afterAll(async () => {
    closeReceiver();
    await (await import('@/lib/store')).closeStore();
    portal.sandbox.close();
  });

  const bearer = new Map<string, string>();
  async function tokenOf(owner: string, limits: { ratePerMinute?: number; dailyRecords?: number } = {}): Promise<ApiToken> {
    const made = await testToken(portal.store, owner, limits);
    bearer.set(made.token.id, made.secret);
    return made.token;
  }

  async function webhookOf(user: { email: string; role: string }, token: ApiToken): Promise<string> {
    const { endpointsResponse } = await import('@/lib/http/webhooks');
    const res = await answer(endpointsResponse(post({ url: portal.receiverUrl }), user as never, token.id));
    expect(res.status).toBe(201);
    return res.json.id as string;
  }

  const lastSeq = async () => (await import('@/lib/store/events')).lastEventSeq(portal.store.db);
  const actions = async (action: string) =>
    (await (await import('@/lib/store/audit')).latestAudit(portal.store.db, { action }, 500)).length;
  return { portal, bearer, tokenOf, webhookOf, lastSeq, actions };
}
