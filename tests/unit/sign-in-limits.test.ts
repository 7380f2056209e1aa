import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkSignIn, recordSignInFailure, recordSignInSuccess, resetSignInLimits, SIGN_IN_POLICY } from '@/lib/auth/sign-in-limits';
import { closeStore } from '@/lib/store';
import { storeEngines, storeEnv } from '../support/store-engines';

afterAll(() => closeStore());

describe.each(storeEngines())('sign-in limits on $name', (engine) => {
  beforeAll(async () => {
    await closeStore();
    Object.assign(process.env, storeEnv(await engine.fresh()));
  });
  beforeEach(() => resetSignInLimits());

  it('let five failures of an account through, then make each attempt from that address wait longer', async () => {
    for (let i = 0; i < SIGN_IN_POLICY.ACCOUNT_FREE_FAILURES; i += 1) {
      expect(await checkSignIn('ana@example.com', '198.51.100.7')).toEqual({ ok: true });
      await recordSignInFailure('ana@example.com', '198.51.100.7');
    }
    expect(await checkSignIn('ana@example.com', '198.51.100.7')).toEqual({ ok: true });
    const waits: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      await recordSignInFailure('ana@example.com', '198.51.100.7');
      const verdict = await checkSignIn('ana@example.com', '198.51.100.7');
      waits.push(verdict.ok ? 0 : verdict.retryAfterSeconds);
    }
    expect(waits).toEqual([1, 2, 4, 8]);
  });

  it('do not lock the owner out: an address with no failures still gets in', async () => {
    for (let i = 0; i < 12; i += 1) await recordSignInFailure('ana@example.com', `203.0.113.${i}`);
    expect(await checkSignIn('ana@example.com', '203.0.113.3')).toMatchObject({ ok: false, reason: 'account' });
    expect(await checkSignIn('ana@example.com', '192.0.2.50')).toEqual({ ok: true });
    await recordSignInSuccess('ana@example.com');
    expect(await checkSignIn('ana@example.com', '203.0.113.3')).toEqual({ ok: true });
  });

  it('never give a fresh budget by waiting: the count stays for a day, so the next failure waits longer still', async () => {
    for (let i = 0; i < 8; i += 1) await recordSignInFailure('bo@example.com', '198.51.100.9');
    const before = await checkSignIn('bo@example.com', '198.51.100.9');
    await recordSignInFailure('bo@example.com', '198.51.100.9');
    const after = await checkSignIn('bo@example.com', '198.51.100.9');
    expect(before.ok || after.ok).toBe(false);
    expect(!after.ok && !before.ok && after.retryAfterSeconds).toBe(2 * (before.ok ? 0 : before.retryAfterSeconds));
  });

  it('block an address that sprays many accounts, without touching other addresses', async () => {
    for (let i = 0; i <= SIGN_IN_POLICY.ADDRESS_FAILURES; i += 1) await recordSignInFailure(`user${i}@example.com`, '198.51.100.20');
    expect(await checkSignIn('someone-new@example.com', '198.51.100.20')).toMatchObject({ ok: false, reason: 'address' });
    expect(await checkSignIn('someone-new@example.com', '198.51.100.21')).toEqual({ ok: true });
  });

  it('count IPv6 addresses by their /64', async () => {
    for (let i = 0; i <= SIGN_IN_POLICY.ADDRESS_FAILURES; i += 1)
      await recordSignInFailure(`v6-${i}@example.com`, `2001:db8:1:2::${i.toString(16)}`);
    expect(await checkSignIn('x@example.com', '2001:db8:1:2:ffff::1')).toMatchObject({ ok: false, reason: 'address' });
    expect(await checkSignIn('x@example.com', '2001:db8:1:3::1')).toEqual({ ok: true });
  });
});
