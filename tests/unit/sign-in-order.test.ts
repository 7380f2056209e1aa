import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

/** The credentials check in lib/auth/options.ts: limits first, then (and only then) the password hash. */

const hashes = vi.hoisted(() => ({ count: 0 }));
vi.mock('@/lib/auth/passwords', async (original) => {
  const real = await original<typeof import('@/lib/auth/passwords')>();
  return {
    ...real,
    verifyPassword: async (password: string, stored: string) => ((hashes.count += 1), real.verifyPassword(password, stored)),
  };
});

type Authorize = (credentials: Record<string, string>, req: { headers: Record<string, string> }) => Promise<unknown>;
let authorize: Authorize;

beforeAll(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'sign-in-'));
  Object.assign(process.env, {
    PICKS_API_BASE_URL: 'https://api.example.com',
    PICKS_API_KEY: 'k',
    AUTH_SECRET: 'x'.repeat(40),
    PORTAL_DATA_DIR: dir,
    DATABASE_URL: '',
    PORTAL_USERS_FILE: path.join(dir, 'users.json'),
    PORTAL_SANDBOX: '',
  });
  await (await import('@/lib/store')).closeStore();
  const { addUser } = await import('@/lib/auth/users');
  await addUser('ana@example.com', 'editor', 'right password');
  await addUser('viewer@demo.picks.test', 'viewer', 'demo-viewer-pass', { demo: true });
  const { authOptions } = await import('@/lib/auth/options');
  const provider = authOptions().providers[0] as unknown as { options: { authorize: Authorize } };
  authorize = provider.options.authorize;
});

beforeEach(async () => {
  await (await import('@/lib/auth/sign-in-limits')).resetSignInLimits();
  hashes.count = 0;
});

describe('credentials sign-in', () => {
  it('checks the limits before hashing: a throttled attempt costs no scrypt', async () => {
    const req = { headers: {} }; // not behind portal-server.mjs: the address is "unknown", one bucket
    for (let i = 0; i < 6; i += 1) expect(await authorize({ email: 'ana@example.com', password: 'wrong' }, req)).toBeNull();
    expect(hashes.count).toBe(6);
    await expect(authorize({ email: 'ana@example.com', password: 'right password' }, req)).rejects.toThrow(
      'Too many failed sign-ins for this account',
    );
    expect(hashes.count).toBe(6);
  });

  it('hashes an unknown account too, so timing does not tell who exists', async () => {
    expect(await authorize({ email: 'nobody@example.com', password: 'whatever' }, { headers: {} })).toBeNull();
    expect(hashes.count).toBe(1);
  });

  it('refuses a demo account when the upstream is not the sandbox, with a clear message', async () => {
    await expect(authorize({ email: 'viewer@demo.picks.test', password: 'demo-viewer-pass' }, { headers: {} })).rejects.toThrow(
      'Demo accounts work only with the sandbox upstream',
    );
    expect(await authorize({ email: 'ana@example.com', password: 'right password' }, { headers: {} })).toMatchObject({
      email: 'ana@example.com',
      role: 'editor',
    });
  });

  it('ignores X-Forwarded-For without a trusted proxy: spoofed addresses share one count', async () => {
    for (let i = 0; i < 6; i += 1)
      await authorize({ email: 'ana@example.com', password: 'wrong' }, { headers: { 'x-forwarded-for': `198.51.100.${i}` } });
    await expect(
      authorize({ email: 'ana@example.com', password: 'right password' }, { headers: { 'x-forwarded-for': '198.51.100.200' } }),
    ).rejects.toThrow('Too many failed sign-ins');
  });
});

describe('credentials sign-in without a store', () => {
  it('refuses with a clear message, without hashing, when the store cannot be reached', async () => {
    const { closeStore } = await import('@/lib/store');
    const { freePort } = await import('../support/postgres');
    await closeStore();
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = `postgres://portal@127.0.0.1:${await freePort()}/portal`; // nobody listens there
    (await import('@/lib/process-state')).processSlot('signInLimits').set(undefined);
    try {
      await expect(authorize({ email: 'ana@example.com', password: 'right password' }, { headers: {} })).rejects.toThrow(
        "Sign-in is unavailable: the portal's database cannot be reached. Try again in a minute.",
      );
      expect(hashes.count).toBe(0);
    } finally {
      process.env.DATABASE_URL = saved;
      await closeStore();
      (await import('@/lib/process-state')).processSlot('signInLimits').set(undefined);
    }
  });
});
