import { describe, expect, it } from 'vitest';
import { continueSession, ENDED, sessionEndsAt, startSession, type SessionPolicy } from '@/lib/auth/session-token';
import type { StoredUser } from '@/lib/auth/users';

const HOUR = 3600_000;
const t0 = Date.UTC(2026, 10, 22, 8);
const account = (change: Partial<StoredUser> = {}): StoredUser => ({
  email: 'ana@example.com',
  role: 'editor',
  passwordHash: 'scrypt$x',
  createdAt: '',
  demo: false,
  disabled: false,
  lastSignInAt: null,
  ...change,
});

function policy(overrides: Partial<SessionPolicy> & { at?: number } = {}): SessionPolicy {
  return {
    maxAgeSeconds: 8 * 3600,
    isRevoked: async () => false,
    findAccount: async () => account(),
    accountAllowed: () => true,
    now: () => overrides.at ?? t0 + HOUR,
    ...overrides,
  };
}

const signedIn = () =>
  startSession({ email: 'ana@example.com', jti: 'first' }, { email: 'ana@example.com', role: 'editor' }, 'credentials', t0);

describe('session tokens', () => {
  it('get an identity and a sign-in time that later encodings keep (jti changes, sid does not)', async () => {
    const token = signedIn();
    expect(token.sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(token.signedInAt).toBe(t0 / 1000);
    const reencoded = await continueSession({ ...token, jti: 'second', exp: 999 }, policy());
    expect(reencoded.sid).toBe(token.sid);
    expect(reencoded.role).toBe('editor');
  });

  it('end for good SESSION_MAX_HOURS after sign-in, however often they were used', async () => {
    const token = signedIn();
    expect(sessionEndsAt(token, 8 * 3600)).toBe(t0 + 8 * HOUR);
    expect(await continueSession(token, policy({ at: t0 + 8 * HOUR - 1000 }))).toMatchObject({ sid: token.sid });
    expect(await continueSession(token, policy({ at: t0 + 8 * HOUR }))).toBe(ENDED);
    expect(await continueSession(token, policy({ at: t0 + 2 * HOUR, maxAgeSeconds: 3600 }))).toBe(ENDED);
  });

  it('refuse a revoked identity, a token without identity, and one signed in in the future', async () => {
    const token = signedIn();
    expect(await continueSession(token, policy({ isRevoked: async (sid) => sid === token.sid }))).toBe(ENDED);
    expect(await continueSession({ email: 'ana@example.com', role: 'admin' }, policy())).toBe(ENDED);
    expect(await continueSession({ ...token, signedInAt: (t0 + 5 * HOUR) / 1000 }, policy())).toBe(ENDED);
  });

  it('follow the account: removed, disabled or not allowed ends the session; a new role applies', async () => {
    const token = signedIn();
    expect(await continueSession(token, policy({ findAccount: async () => undefined }))).toBe(ENDED);
    expect(await continueSession(token, policy({ findAccount: async () => account({ disabled: true }) }))).toBe(ENDED);
    expect(await continueSession(token, policy({ accountAllowed: () => false }))).toBe(ENDED);
    expect(await continueSession(token, policy({ findAccount: async () => account({ role: 'viewer' }) }))).toMatchObject({
      role: 'viewer',
      sid: token.sid,
    });
  });

  it('keep an OIDC session role (no users-store account) but still end it on time', async () => {
    const token = startSession({ email: 'sso@example.com' }, { email: 'sso@example.com', role: 'manager' }, 'oidc', t0);
    expect(await continueSession(token, policy({ findAccount: async () => undefined }))).toMatchObject({ role: 'manager' });
    expect(await continueSession(token, policy({ at: t0 + 9 * HOUR }))).toBe(ENDED);
  });
});
