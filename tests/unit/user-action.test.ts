import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { embeddedPortalEnv } from '../support/store-engines';

/** The server action of /admin/users checks the caller's role itself: a page that is not shown is not a guard. */

const session = vi.hoisted(() => ({ current: null as null | { user: { email: string; role: string } } }));
vi.mock('@/lib/http/session', async () => (await import('../support/session-mock')).sessionModule(session));
vi.mock('next/cache', () => ({ revalidatePath: () => undefined }));

beforeAll(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'user-action-'));
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

const form = (fields: Record<string, string>) => {
  const data = new FormData();
  for (const [key, value] of Object.entries(fields)) data.set(key, value);
  return data;
};

describe('userAction', () => {
  it('refuses every role but admin, and signed-out callers, changing nothing', async () => {
    const { userAction } = await import('@/app/(portal)/admin/users/actions');
    const { findUser } = await import('@/lib/auth/users');
    for (const caller of [
      null,
      { user: { email: 'e@example.com', role: 'editor' } },
      { user: { email: 'm@example.com', role: 'manager' } },
    ]) {
      session.current = caller;
      const result = await userAction(null, form({ op: 'add', email: 'sneaky@example.com', role: 'admin', password: 'a long password' }));
      expect(result).toEqual({ ok: false, message: 'Only admins may manage users. Sign in again.' });
    }
    expect(await findUser('sneaky@example.com')).toBeUndefined();
    session.current = { user: { email: 'boss@example.com', role: 'admin' } };
    expect(await userAction(null, form({ op: 'add', email: 'ok@example.com', role: 'viewer', password: '' }))).toMatchObject({ ok: true });
    expect((await findUser('ok@example.com'))?.role).toBe('viewer');
    expect(await userAction(null, form({ op: 'role', email: 'ok@example.com', role: 'root' }))).toMatchObject({ ok: false });
  });
});
