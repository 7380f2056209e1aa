import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenForAlerts } from '@/lib/alerts/listen';
import { closeStore, getStore } from '@/lib/store';
import { readAudit } from '@/lib/store/audit';
import { insertToken, type ApiToken } from '@/lib/store/tokens';
import { forgetAccount } from '@/lib/auth/accounts';
import { addUser } from '@/lib/auth/users';
import { manageUser } from '@/lib/auth/user-admin';
import { authenticate, newToken } from '@/lib/tokens/access';
import { ownerChange } from '@/lib/tokens/owner';
import { tokenResponse } from '@/lib/http/tokens';
import { tokenViews } from '@/lib/tokens/read';
import { subscriptionResponse } from '@/lib/http/alerts';
import { deliveryMaker } from '../support/new-delivery';
import { storeEngines, storeEnv } from '../support/store-engines';

/**
 * The one rule for who may act (lib/auth/principal.ts) where the store is involved, on both engines: an API
 * token stops when its owner is disabled, demoted or removed (a re-added address is not that owner), says why,
 * is audited, and works again when an admin gives it to another owner; another instance stops it within the
 * accounts' 10 s; a person may choose only the alert kinds their role may open.
 */

const boss = { email: 'boss@example.com', role: 'admin' as const };
const ed = { email: 'ed@example.com', role: 'editor' as const };

beforeAll(() => {
  listenForAlerts(); // as lib/start/portal.ts does: a run's end queues its alert
  Object.assign(process.env, { PICKS_API_BASE_URL: 'http://127.0.0.1:9', PICKS_API_KEY: 'k-123', AUTH_SECRET: 'a'.repeat(40) });
});
afterAll(() => closeStore());

async function tokenOf(owner: string, now = Date.now()): Promise<{ token: ApiToken; bearer: string }> {
  const { token: secret, hash, prefix } = newToken();
  const token: ApiToken = {
    id: `tok_${Math.random().toString(16).slice(2, 14).padEnd(12, '0')}`,
    name: 'Ed system',
    owner,
    ownerSinceMs: now,
    prefix,
    scope: { content: ['picks', 'results'], sports: [], leagues: [], from: null, to: null },
    expiresMs: now + 86_400_000,
    ratePerMinute: 60,
    dailyRecords: 1000,
    createdMs: now,
    createdBy: owner,
    updatedMs: now,
    revokedMs: null,
    revokedBy: null,
  };
  await insertToken((await getStore()).db, token, hash);
  return { token, bearer: `Bearer ${secret}` };
}

const refusal = (bearer: string, now?: number) =>
  authenticate(bearer, false, now).then(
    () => 'ok',
    (error: Error) => error.message,
  );
const admin = (op: string, email: string, role?: string) => ownerChange(boss, email, () => manageUser(boss, { op, email, role }));
const json = { 'Content-Type': 'application/json' };
const patch = (body: unknown) =>
  new Request('http://portal.test/api/tokens/x', { method: 'PATCH', headers: json, body: JSON.stringify(body) });

/** The address added again later than the grant (more than the minute instances' clocks may differ by). */
async function reAddedLater(email: string) {
  const { db } = await getStore();
  await db
    .updateTable('users')
    .set({ created_at: new Date(Date.now() + 120_000).toISOString() })
    .where('email', '=', email)
    .execute();
  forgetAccount(email);
}

async function auditOf(action: string) {
  const entries = [];
  for await (const entry of readAudit((await getStore()).db, { action: action as never })) entries.push(entry);
  return entries;
}

describe.each(storeEngines())('who may act on $name', (engine) => {
  beforeEach(async () => {
    await closeStore();
    Object.assign(process.env, storeEnv(await engine.fresh()));
    await addUser(boss.email, 'admin', 'a long password');
    await addUser(ed.email, 'editor', 'a long password');
    await addUser('eve@example.com', 'editor', 'a long password');
    await addUser('vic@example.com', 'viewer', 'a long password');
    for (const email of [boss.email, ed.email, 'eve@example.com', 'vic@example.com']) forgetAccount(email); // the other engine's
  });

  it('a token stops with its owner disabled, demoted or removed, says why, is audited, and an admin gives it to another owner', async () => {
    const { token, bearer } = await tokenOf(ed.email);
    expect(await refusal(bearer)).toBe('ok');

    await admin('disable', ed.email);
    expect(await refusal(bearer)).toBe('This token is suspended: owner disabled. An admin can give it to another owner.');
    expect((await tokenViews(boss)).find((t) => t.id === token.id)).toMatchObject({ state: 'suspended', suspended: 'owner disabled' });
    expect((await auditOf('token.suspend')).map((e) => [e.actor, e.target, e.filters?.reason])).toEqual([
      [boss.email, `Ed system (${token.id})`, 'owner disabled'],
    ]);

    await admin('enable', ed.email);
    expect(await refusal(bearer)).toBe('ok');
    expect((await auditOf('token.resume')).length).toBe(1);

    await admin('role', ed.email, 'viewer');
    expect(await refusal(bearer)).toMatch(/suspended: owner is a viewer, who may not use tokens/);
    expect((await tokenViews(boss)).find((t) => t.id === token.id)?.state).toBe('suspended');

    await admin('remove', ed.email);
    expect(await refusal(bearer)).toMatch(/suspended: owner removed/);
    // The same address added again is another person: what the old account was given does not pass to them.
    await addUser(ed.email, 'editor', 'another long password');
    await reAddedLater(ed.email);
    expect(await refusal(bearer)).toMatch(/suspended: owner removed/);

    // Only an admin reassigns, and only to someone who may hold tokens; every wrong field named at once.
    const byEditor = await tokenResponse(patch({ owner: 'eve@example.com' }), { ...ed, name: ed.email }, token.id).catch((e) => e);
    expect(byEditor).toMatchObject({ status: 403, message: 'Only an admin may give a token to another owner.' });
    const refused = await tokenResponse(patch({ owner: 'vic@example.com', name: 'x' }), boss, token.id).catch((e) => e);
    expect(refused).toMatchObject({ status: 400, code: 'INVALID_TOKEN' });
    expect(Object.keys(refused.details).sort()).toEqual(['name', 'owner']);
    expect(refused.details.owner).toMatch(/vic@example.com cannot hold tokens \(a viewer/);
    const moved = await tokenResponse(patch({ owner: 'Eve@Example.com' }), boss, token.id);
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({ owner: 'eve@example.com', state: 'active', suspended: null });
    expect(await refusal(bearer)).toBe('ok');
    expect((await auditOf('token.reassign')).map((e) => e.filters)).toEqual([{ from: ed.email, to: 'eve@example.com' }]);
  });

  it('another instance stops the token within the accounts’ 10 s, without being told', async () => {
    const t0 = Date.now();
    const { bearer } = await tokenOf('eve@example.com', t0);
    expect(await refusal(bearer, t0)).toBe('ok');
    // Disabled by another instance: straight in the store, nothing forgotten here.
    const { updateUser } = await import('@/lib/store/users');
    await updateUser((await getStore()).db, 'eve@example.com', { disabled: true });
    expect(await refusal(bearer, t0 + 4_000)).toBe('ok'); // this instance's caches still hold
    expect(await refusal(bearer, t0 + 10_001)).toMatch(/suspended: owner disabled/);
  });

  it('a person chooses only the alert kinds their role may open, every closed one named', async () => {
    const put = (kinds: string[]) =>
      new Request('http://portal.test/api/alerts/subscription', { method: 'PUT', headers: json, body: JSON.stringify({ kinds }) });
    const viewer = { user: { email: 'vic@example.com', role: 'viewer' as const }, expires: '' };
    const refused = await subscriptionResponse(put(['sport.down', 'token.quota', 'delivery.failed', 'audit.failed']), viewer);
    expect(refused.status).toBe(400);
    const body = await refused.json();
    expect(body.error.details.kinds).toMatch(
      /"token.quota", "delivery.failed", "audit.failed" tell about what your role \(viewer\) may not open/,
    );
    // Every wrong field named at once, as the portal's OpenAPI document describes the body; nothing saved.
    const wrong = await subscriptionResponse(
      new Request('http://portal.test/api/alerts/subscription', {
        method: 'PUT',
        headers: json,
        body: JSON.stringify({ kinds: ['sport.down', 'sport.exploded'], delivery: 'weekly', when: 'now' }),
      }),
      viewer,
    );
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error.details).toEqual({
      kinds: expect.stringMatching(/^"sport.exploded" is not an alert kind\. Allowed: /),
      delivery: 'must be "each" (as alerts happen) or "digest" (one email a day)',
      when: 'is not a field of a subscription (kinds, delivery)',
    });
    const notJson = await subscriptionResponse(
      new Request('http://portal.test/api/alerts/subscription', { method: 'PUT', body: 'kinds=sport.down' }),
      viewer,
    );
    expect((await notJson.json()).error.details).toEqual({ body: 'must be JSON (Content-Type: application/json)' });
    const ok = await subscriptionResponse(put(['sport.down']), viewer);
    const mine = await ok.json();
    expect(mine.kinds).toEqual(['sport.down']);
    expect(mine.chosen).toBe(true);
    expect(mine.available.map((k: { kind: string }) => k.kind)).not.toContain('token.quota');
  });

  it('a delivery of an owner who may no longer run deliveries fails loudly, delivering nothing, and says why', async () => {
    const { db } = await getStore();
    const { runNow } = await import('@/lib/deliveries/scheduler');
    const { listRuns } = await import('@/lib/store/deliveries');
    const { latestAlerts } = await import('@/lib/store/alerts');
    const make = deliveryMaker(
      () => db,
      () => ({ name: 'Ed nightly', kind: 'picks', format: 'csv', filters: {}, destination: { type: 'directory', folder: 'ed' } }),
      { now: Date.now() },
    );
    const delivery = await make({ createdBy: ed.email });
    const ctx = { db, instance: 'a', settings: { root: '/nonexistent-root', secretKey: null, allowPrivate: true } };
    await admin('role', ed.email, 'viewer');
    await (
      await runNow(ctx, delivery)
    ).done;
    await admin('disable', ed.email);
    await (
      await runNow(ctx, delivery)
    ).done;
    const runs = await listRuns(db, delivery.id);
    expect(runs.map((r) => [r.outcome, r.file])).toEqual([
      ['failed', null],
      ['failed', null],
    ]);
    expect(runs[0]!.error).toBe(
      'OWNER_NOT_ALLOWED: This delivery runs for ed@example.com, and nothing was delivered: owner disabled. It runs again once they may run deliveries.',
    );
    expect(runs[1]!.error).toMatch(/owner is a viewer, who may not use deliveries/);
    expect((await latestAlerts(db)).filter((a) => a.sport === 'delivery Ed nightly').map((a) => a.kind)).toEqual([
      'delivery.failed',
      'delivery.failed',
    ]);
  });

  it('a delivery of a removed owner stays stopped when the address is added again (another person)', async () => {
    const { db } = await getStore();
    const { runNow } = await import('@/lib/deliveries/scheduler');
    const { listRuns } = await import('@/lib/store/deliveries');
    const make = deliveryMaker(
      () => db,
      () => ({ name: 'Eve nightly', kind: 'picks', format: 'csv', filters: {}, destination: { type: 'directory', folder: 'eve' } }),
      { now: Date.now() },
    );
    const delivery = await make({ createdBy: 'eve@example.com' });
    await admin('remove', 'eve@example.com');
    await addUser('eve@example.com', 'editor', 'another long password');
    await reAddedLater('eve@example.com');
    await (
      await runNow({ db, instance: 'a', settings: { root: '/nonexistent-root', secretKey: null, allowPrivate: true } }, delivery)
    ).done;
    expect((await listRuns(db, delivery.id))[0]?.error).toMatch(/OWNER_NOT_ALLOWED: .*owner removed/);
  });

  it('an alert about a token of any name can be sent again', async () => {
    const { db } = await getStore();
    const { queueAlerts, moveAlerts, alertsByIds } = await import('@/lib/store/alerts');
    const { resendResponse } = await import('@/lib/http/alerts');
    const sport = 'token Café “loader” <x> (tok_00000000000b)';
    await queueAlerts(db, [
      { kind: 'token.unused', sport, state: 'unused', side: null, reason: 'Never used', detail: null, createdMs: 1, dueMs: 1 },
    ]);
    const id = `1:token.unused:${sport}`;
    await moveAlerts(db, [id], 'held', 'unsent', { error: 'nobody receives it' });
    const res = await resendResponse(id, { user: boss, expires: '' });
    expect(res.status).toBe(202);
    expect((await alertsByIds(db, [id]))[0]?.status).toBe('pending');
  });
});
