import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@/lib/store/open';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { portalInProcess, testToken } from '../support/portal-in-process';

/**
 * Rolling a token (POST /api/tokens/<id>/roll) against the sandbox over HTTP: the new secret works at once, the old
 * one through the overlap its owner chose and is refused after it in words that say why; no overlap refuses it at
 * once; a second roll ends the first one's overlap; each secret's last use is told apart; audited; only who may
 * manage the token may roll it, every wrong setting named at once.
 */

const KEY = 'sandbox-full-key';
let sandbox: Sandbox;
let store: Store;
const ed = { email: 'ed@example.com', role: 'editor' as const };
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  sandbox = createSandbox({ rateLimit: null, picks: 200 });
  store = await portalInProcess(await sandbox.listen(0), KEY);
  const { putUser } = await import('@/lib/store/users');
  await putUser(store.db, { email: 'ed@example.com', role: 'editor', passwordHash: 'x' });
  await putUser(store.db, { email: 'eve@example.com', role: 'editor', passwordHash: 'x' });
});

afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  sandbox.close();
});

const me = async (secret: string) => {
  const { serveV1OnNext } = await import('@/lib/api-v1/http');
  const res = await serveV1OnNext(new Request('http://portal.test/api/v1/me', { headers: { authorization: `Bearer ${secret}` } }));
  return { status: res.status, json: (await res.json()) as Json };
};

async function roll(id: string, body: unknown, user: { email: string; role: 'editor' | 'admin' } = ed) {
  const { rollResponse } = await import('@/lib/http/token-roll');
  const request = new Request(`http://portal.test/api/tokens/${id}/roll`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  try {
    const res = await rollResponse(request, user, id);
    return { status: res.status, json: (await res.json()) as Json };
  } catch (error) {
    return { status: (error as { status: number }).status, json: { error: (error as { toJSON(): object }).toJSON() } as Json };
  }
}

describe('rolling a token', () => {
  it('keeps the old secret working through the overlap, then refuses it; no overlap refuses it at once', async () => {
    const { token, secret: first } = await testToken(store, 'ed@example.com');
    expect((await me(first)).status).toBe(200);
    const rolled = await roll(token.id, { overlapHours: 24 });
    expect(rolled.status).toBe(201);
    const second = rolled.json.token as string;
    expect(second).toMatch(/^pvt_[A-Za-z0-9_-]{43}$/);
    expect(rolled.json).toMatchObject({ prefix: second.slice(0, 10), previous: { prefix: first.slice(0, 10) } });
    expect(Date.parse(rolled.json.previous.until) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    // Both work inside the overlap, as the same token with its settings.
    expect((await me(second)).json.token.id).toBe(token.id);
    expect((await me(first)).json.token.id).toBe(token.id);
    // The overlap over (moved into the past in the store): the old secret is refused, saying why.
    await store.db
      .updateTable('api_tokens')
      .set({ prev_until_ms: Date.now() - 1 })
      .where('id', '=', token.id)
      .execute();
    (await import('@/lib/tokens/access')).forgetTokens();
    const late = await me(first);
    expect(late.status).toBe(401);
    expect(late.json.error.message).toBe(
      'This secret was replaced when the token was rolled, and its overlap is over: use the new secret.',
    );
    expect((await me(second)).status).toBe(200);
    // No overlap: the secret it had is refused at once; the one before that no longer matches at all.
    const third = (await roll(token.id, { overlapHours: 0 })).json.token as string;
    expect((await me(second)).json.error.message).toBe('Missing or invalid credentials.');
    expect((await me(first)).status).toBe(401);
    expect((await me(third)).status).toBe(200);
    const audit = await store.db.selectFrom('audit_log').selectAll().where('action', '=', 'token.roll').orderBy('seq').execute();
    expect(audit.map((a) => [a.actor, a.target, JSON.parse(a.filters!).overlap])).toEqual([
      ['ed@example.com', `${token.name} (${token.id})`, expect.stringMatching(/^24 hours, until 20\d\d-/)],
      ['ed@example.com', `${token.name} (${token.id})`, 'none: the old secret is refused now'],
    ]);
  });

  it('tells each secret’s last use apart, in the request log too', async () => {
    const { token, secret: old } = await testToken(store, 'ed@example.com');
    const fresh = (await roll(token.id, { overlapHours: 1 })).json.token as string;
    await me(old);
    await me(fresh);
    await me(fresh);
    await (await import('@/lib/tokens/usage')).flushUsage();
    const { secretsLastUsed, tokenRequestsPage } = await import('@/lib/http/token-logs');
    const { data } = await tokenRequestsPage(ed, token.id, {});
    expect(data.map((r) => r.prefix).sort()).toEqual([fresh.slice(0, 10), fresh.slice(0, 10), old.slice(0, 10)].sort());
    const used = await secretsLastUsed({ id: token.id, prefix: fresh.slice(0, 10), previous: { prefix: old.slice(0, 10) } });
    expect(Object.keys(used)).toEqual([fresh.slice(0, 10), old.slice(0, 10)]);
    expect(Object.values(used).every((at) => at !== null && Date.now() - Date.parse(at) < 60_000)).toBe(true);
  });

  it('is for whoever may manage the token, with every wrong setting named at once', async () => {
    const { token } = await testToken(store, 'ed@example.com');
    const wrong = await roll(token.id, { overlapHours: 200, keepOld: true });
    expect(wrong.status).toBe(400);
    expect(Object.keys(wrong.json.error.details).sort()).toEqual(['keepOld', 'overlapHours']);
    expect(wrong.json.error.details.overlapHours).toContain('from 0 (none) to 168 (7 days)');
    expect((await roll(token.id, { overlapHours: 1 }, { email: 'eve@example.com', role: 'editor' })).status).toBe(404);
    expect((await roll(token.id, { overlapHours: 1 }, { email: 'boss@example.com', role: 'admin' })).status).toBe(201);
  });
});
