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
  sessionEpoch: 7,
  provider: 'credentials',
  ...change,
});

function policy(overrides: Partial<SessionPolicy> & { at?: number } = {}): SessionPolicy {
  return {
    maxAgeSeconds: 8 * 3600,
    isRevoked: async () => false,
    findAccount: async () => account(),
    demoRefused: false,
    now: () => overrides.at ?? t0 + HOUR,
    ...overrides,
  };
}

const signedIn = () =>
  startSession(
    { email: 'ana@example.com', jti: 'first' },
    { email: 'ana@example.com', role: 'editor', sessionEpoch: 7 },
    'credentials',
    t0,
  );

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
    expect(await continueSession(token, policy({ demoRefused: true, findAccount: async () => account({ demo: true }) }))).toBe(ENDED);
    expect(await continueSession(token, policy({ demoRefused: true }))).toMatchObject({ sid: token.sid });
    expect(await continueSession(token, policy({ findAccount: async () => account({ role: 'viewer' }) }))).toMatchObject({
      role: 'viewer',
      sid: token.sid,
    });
  });

  it('end for good when the account is under another epoch (password reset, disable, enable, role change, re-added)', async () => {
    const token = signedIn();
    expect(await continueSession(token, policy({ findAccount: async () => account({ sessionEpoch: 8 }) }))).toBe(ENDED);
    // Enabled again: a new epoch, so the cookie from before the disable stays dead.
    expect(await continueSession(token, policy({ findAccount: async () => account({ sessionEpoch: 9, disabled: false }) }))).toBe(ENDED);
    // A token from before epochs existed counts as epoch 0.
    const { epoch: _epoch, ...old } = token;
    expect(await continueSession(old, policy({ findAccount: async () => account({ sessionEpoch: 0 }) }))).toMatchObject({ sid: token.sid });
    expect(await continueSession(old, policy())).toBe(ENDED);
  });

  it('keep an OIDC session role from the identity provider, end it when its account is disabled, removed or re-made', async () => {
    const sso = account({ email: 'sso@example.com', role: 'viewer', provider: 'oidc', sessionEpoch: 3, passwordHash: '' });
    const token = startSession({ email: 'sso@example.com' }, { email: 'sso@example.com', role: 'manager', sessionEpoch: 3 }, 'oidc', t0);
    expect(await continueSession(token, policy({ findAccount: async () => sso }))).toMatchObject({ role: 'manager' });
    expect(await continueSession(token, policy({ findAccount: async () => ({ ...sso, disabled: true }) }))).toBe(ENDED);
    expect(await continueSession(token, policy({ findAccount: async () => undefined }))).toBe(ENDED);
    expect(await continueSession(token, policy({ findAccount: async () => ({ ...sso, sessionEpoch: 4 }) }))).toBe(ENDED);
    expect(await continueSession(token, policy({ at: t0 + 9 * HOUR, findAccount: async () => sso }))).toBe(ENDED);
    // A password account under the same address is not the single sign-on identity.
    expect(await continueSession(token, policy({ findAccount: async () => ({ ...sso, provider: 'credentials' }) }))).toBe(ENDED);
  });
});
