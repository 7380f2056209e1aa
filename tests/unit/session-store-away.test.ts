import { beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * While the store is away, a session is honoured only on this instance's own answer younger than
 * SESSION_STORE_GRACE_SECONDS; past that bound, or without any answer, it is refused (fail closed).
 */

const state = vi.hoisted(() => ({ up: true, revoked: new Set<string>() }));
const away = () => Promise.reject(new Error('connection refused'));
vi.mock('@/lib/store', () => ({ getStore: () => (state.up ? Promise.resolve({ db: {} }) : away()) }));
vi.mock('@/lib/store/sessions', () => ({
  isSessionRevoked: async (_db: unknown, sid: string) => state.revoked.has(sid),
  revokeSession: async () => undefined,
}));
vi.mock('@/lib/store/users', () => ({
  findUser: async (_db: unknown, email: string) => ({
    email,
    role: 'editor',
    passwordHash: 'scrypt$x',
    createdAt: '',
    demo: false,
    disabled: false,
    lastSignInAt: null,
    sessionEpoch: 1,
    provider: 'credentials',
  }),
}));

const { isSessionRevoked, revokeSession } = await import('@/lib/auth/revocation');
const { currentAccount } = await import('@/lib/auth/accounts');
const T = 1_800_000_000_000;
const GRACE = 60_000;

beforeEach(() => {
  state.up = true;
});

describe('sessions while the store is away', () => {
  it('a revocation check: the last confirmation honoured within the bound, refused past it, and never without one', async () => {
    expect(await isSessionRevoked('sid-a', T, GRACE)).toBe(false); // confirmed by the store
    state.up = false;
    expect(await isSessionRevoked('sid-a', T + 30_000, GRACE)).toBe(false);
    expect(await isSessionRevoked('sid-a', T + GRACE + 1, GRACE)).toBe(true);
    expect(await isSessionRevoked('sid-never-seen', T + 1_000, GRACE)).toBe(true);
    // A sign-out seen here is refused at once, store or no store.
    state.up = true;
    expect(await isSessionRevoked('sid-b', T, GRACE)).toBe(false);
    await revokeSession('sid-b', T + 3_600_000);
    state.up = false;
    expect(await isSessionRevoked('sid-b', T + 1_000, GRACE)).toBe(true);
  });

  it('an account: the last answer read within the bound, none past it', async () => {
    expect(await currentAccount('ana@example.com', T, GRACE)).toMatchObject({ email: 'ana@example.com', sessionEpoch: 1 });
    state.up = false;
    expect(await currentAccount('ana@example.com', T + 30_000, GRACE)).toMatchObject({ email: 'ana@example.com' });
    expect(await currentAccount('ana@example.com', T + GRACE + 1, GRACE)).toBeUndefined();
    expect(await currentAccount('bo@example.com', T + 1_000, GRACE)).toBeUndefined();
  });
});
