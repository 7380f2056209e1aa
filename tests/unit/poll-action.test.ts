import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { embeddedPortalEnv } from '../support/store-engines';

/** "Poll now" on /changes checks the caller's role itself: the button not being shown is not a guard. */

const session = vi.hoisted(() => ({ current: null as null | { user: { email: string; role: string } } }));
const redirected = vi.hoisted(() => ({ to: '' }));
vi.mock('@/lib/http/session', async () => (await import('../support/session-mock')).sessionModule(session));
vi.mock('next/navigation', () => ({
  redirect: (to: string) => {
    redirected.to = to;
    throw new Error('NEXT_REDIRECT');
  },
}));

beforeAll(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'poll-action-'));
  Object.assign(process.env, embeddedPortalEnv(dir));
  await (await import('@/lib/store')).closeStore();
  // Callers are people of the store: the one rule for who may act reads their account.
  const { addUser } = await import('@/lib/auth/users');
  for (const role of ['viewer', 'editor', 'manager'] as const) await addUser(`${role}@example.com`, role, 'a long password');
  await addUser('e@example.com', 'editor', 'a long password');
  await addUser('m@example.com', 'manager', 'a long password');
  await addUser('boss@example.com', 'admin', 'a long password');
});
afterAll(async () => (await import('@/lib/store')).closeStore());

describe('pollNowAction', () => {
  it('refuses every role but admin, and signed-out callers, asking for nothing', async () => {
    const { pollNowAction } = await import('@/app/(portal)/changes/actions');
    const { getStore } = await import('@/lib/store');
    const { readFeed } = await import('@/lib/store/change-feed');
    const db = (await getStore()).db;
    for (const caller of [null, ...['viewer', 'editor', 'manager'].map((role) => ({ user: { email: `${role}@example.com`, role } }))]) {
      session.current = caller;
      await expect(pollNowAction()).rejects.toThrow('NEXT_REDIRECT');
      expect(redirected.to).toBe('/changes?polled=refused');
    }
    expect((await readFeed(db)).requestedMs).toBeNull();
    session.current = { user: { email: 'boss@example.com', role: 'admin' } };
    await expect(pollNowAction()).rejects.toThrow('NEXT_REDIRECT');
    // No loop runs in this process: the lease holder is asked, through the store.
    // With the time of asking, so that the page can tell when that poll has ended.
    const asked = /^\/changes\?polled=requested&at=(\d+)$/.exec(redirected.to ?? '');
    expect(Math.abs(Number(asked?.[1]) - Date.now())).toBeLessThan(10_000);
    expect((await readFeed(db)).requestedMs).toEqual(expect.any(Number));
  });
});
