import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/lib/store/open';
import { pruneExpired } from '@/lib/store/maintenance';
import { publishPause, readPause } from '@/lib/store/pause';
import { storeRateLimiter } from '@/lib/store/rate-limits';
import { isSessionRevoked, revokeSession } from '@/lib/store/sessions';
import * as users from '@/lib/store/users';
import { changePreferences, getPreferences } from '@/lib/store/preferences';
import { claimSlot, releaseSlot, renewSlot } from '@/lib/store/walk-slots';
import { storeEngines } from '../support/store-engines';

/** Every store operation, on the embedded database and on a real PostgreSQL. */

const execFileAsync = promisify(execFile);
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

describe.each(storeEngines())('the store on $name', (engine) => {
  /** Two handles on one store: two instances (or the portal and `npm run users`). */
  async function twoInstances(): Promise<[Store, Store]> {
    const target = await engine.fresh();
    const a = await openStore(target);
    const b = await openStore(target);
    opened.push(a, b);
    return [a, b];
  }

  const ana = { email: 'ana@example.com', role: 'editor', passwordHash: 'scrypt$a' };

  it("keeps each person's preferences, merged change by change, seen by every instance", async () => {
    const [a, b] = await twoInstances();
    await users.putUser(a.db, ana);
    expect(await getPreferences(a.db, ana.email)).toEqual({});
    expect(await changePreferences(a.db, ana.email, { timeZone: 'Asia/Tokyo' })).toEqual({ timeZone: 'Asia/Tokyo' });
    expect(await changePreferences(b.db, ana.email, { density: 'comfortable' })).toEqual({
      timeZone: 'Asia/Tokyo',
      density: 'comfortable',
    });
    expect(await changePreferences(a.db, ana.email, { timeZone: null })).toEqual({ timeZone: null, density: 'comfortable' });
    expect(await getPreferences(b.db, ana.email)).toEqual({ timeZone: null, density: 'comfortable' });
    // Replacing the account (a new password or role) keeps them; a stored value the schema no longer takes is dropped.
    await users.putUser(b.db, { ...ana, role: 'admin' });
    expect(await getPreferences(a.db, ana.email)).toEqual({ timeZone: null, density: 'comfortable' });
    await a.db.updateTable('users').set({ preferences: '{"theme":"neon"}' }).where('email', '=', ana.email).execute();
    expect(await getPreferences(a.db, ana.email)).toEqual({});
    expect(await changePreferences(a.db, 'nobody@example.com', { theme: 'dark' })).toBeNull();
    expect(await getPreferences(a.db, 'nobody@example.com')).toEqual({});
  });

  it('keeps every change of two instances saving one person’s preferences at once: none lost, none refused', async () => {
    const [a, b] = await twoInstances();
    await users.putUser(a.db, ana);
    for (let round = 0; round < 5; round += 1) {
      const zone = round % 2 ? 'Asia/Tokyo' : 'Europe/Berlin';
      const density = round % 2 ? 'comfortable' : 'compact';
      await Promise.all([
        changePreferences(a.db, ana.email, { timeZone: zone }),
        changePreferences(b.db, ana.email, { density }),
        changePreferences(a.db, ana.email, { nav: 'icons' }),
        changePreferences(b.db, ana.email, { theme: 'dark' }),
      ]);
      expect(await getPreferences(a.db, ana.email)).toEqual({ timeZone: zone, density, nav: 'icons', theme: 'dark' });
      await a.db.updateTable('users').set({ preferences: null }).where('email', '=', ana.email).execute();
    }
  });

  it('keeps users: add, find, list in order, replace, change, sign-in time, remove', async () => {
    const [{ db }] = await twoInstances();
    expect(await users.findUser(db, ana.email)).toBeUndefined();
    const added = await users.putUser(db, ana);
    expect(added).toMatchObject({ ...ana, demo: false, disabled: false, lastSignInAt: null });
    await users.putUser(db, { email: 'bo@example.com', role: 'viewer', passwordHash: 'scrypt$b', demo: true });
    expect((await users.listUsers(db)).map((user) => [user.email, user.role, user.demo])).toEqual([
      ['ana@example.com', 'editor', false],
      ['bo@example.com', 'viewer', true],
    ]);
    await users.updateUser(db, ana.email, { disabled: true });
    const replaced = await users.putUser(db, { ...ana, role: 'admin', passwordHash: 'scrypt$new' });
    expect(replaced).toMatchObject({ role: 'admin', passwordHash: 'scrypt$new', disabled: false, createdAt: added.createdAt });
    expect(await users.updateUser(db, ana.email, { role: 'viewer', disabled: true })).toBe(true);
    expect(await users.updateUser(db, 'nobody@example.com', { role: 'viewer' })).toBe(false);
    expect(await users.setPasswordHash(db, ana.email, 'scrypt$reset')).toBe(true);
    await users.recordSignIn(db, ana.email, new Date('2026-11-22T10:00:00Z'));
    expect(await users.findUser(db, ana.email)).toMatchObject({
      role: 'viewer',
      disabled: true,
      passwordHash: 'scrypt$reset',
      lastSignInAt: '2026-11-22T10:00:00.000Z',
    });
    expect(await users.removeUser(db, ana.email)).toBe(true);
    expect(await users.removeUser(db, ana.email)).toBe(false);
    expect((await users.listUsers(db)).map((user) => user.email)).toEqual(['bo@example.com']);
  });

  it('adds an imported account only when absent, never overwriting', async () => {
    const [{ db }] = await twoInstances();
    await users.putUser(db, ana);
    const row = { ...ana, role: 'admin', createdAt: '2025-01-01T00:00:00.000Z', demo: false, disabled: false };
    expect(await users.insertUserIfAbsent(db, row)).toBe(false);
    expect(await users.insertUserIfAbsent(db, { ...row, email: 'new@example.com' })).toBe(true);
    expect((await users.findUser(db, ana.email))?.role).toBe('editor');
    expect((await users.findUser(db, 'new@example.com'))?.createdAt).toBe('2025-01-01T00:00:00.000Z');
  });

  it('loses no write when two instances change users at once', async () => {
    const [a, b] = await twoInstances();
    const emails = Array.from({ length: 40 }, (_, i) => `user${i}@example.com`);
    await Promise.all(emails.map((email, i) => users.putUser(i % 2 ? a.db : b.db, { email, role: 'viewer', passwordHash: 'scrypt$x' })));
    await Promise.all(
      emails.map((email, i) => (i % 2 ? users.recordSignIn(b.db, email) : users.updateUser(a.db, email, { role: 'editor' }))),
    );
    const all = await users.listUsers(a.db);
    expect(all).toHaveLength(40);
    expect(all.filter((user) => user.role === 'editor')).toHaveLength(20);
    expect(all.filter((user) => user.lastSignInAt !== null)).toHaveLength(20);
  });

  it('refuses a signed-out session on every instance until it would have expired', async () => {
    const [a, b] = await twoInstances();
    const now = Date.now();
    await revokeSession(a.db, 'sid-1', now + 60_000);
    expect(await isSessionRevoked(b.db, 'sid-1')).toBe(true);
    expect(await isSessionRevoked(b.db, 'sid-2')).toBe(false);
    expect(await isSessionRevoked(b.db, 'sid-1', now + 60_001)).toBe(false);
    await revokeSession(b.db, 'sid-3', now + 10, now);
    await revokeSession(b.db, 'sid-4', now + 60_000, now + 20); // prunes sid-3, which has expired
    expect(await isSessionRevoked(a.db, 'sid-3', now)).toBe(false);
    expect(await isSessionRevoked(a.db, 'sid-4')).toBe(true);
  });

  it('counts walk slots per person across instances and per instance, and lets leases run out', async () => {
    const [a, b] = await twoInstances();
    const limits = { perOwner: 2, perInstance: 2, leaseMs: 60_000 };
    const now = Date.now();
    const first = await claimSlot(a.db, 'ana', 'A', limits, now);
    const second = await claimSlot(b.db, 'ana', 'B', limits, now);
    expect([first.ok, second.ok]).toEqual([true, true]);
    expect(await claimSlot(a.db, 'ana', 'A', limits, now)).toEqual({ ok: false, reason: 'owner', held: 2 });
    expect((await claimSlot(a.db, 'bo', 'A', limits, now)).ok).toBe(true);
    expect(await claimSlot(a.db, 'cy', 'A', limits, now)).toEqual({ ok: false, reason: 'instance', held: 2 });
    expect((await claimSlot(b.db, 'cy', 'B', limits, now)).ok).toBe(true);
    if (first.ok) await releaseSlot(a.db, first.id);
    expect((await claimSlot(a.db, 'ana', 'A', limits, now)).ok).toBe(true);
    if (second.ok) await renewSlot(b.db, second.id, 120_000, now);
    // 61 s later only the renewed lease is still held: ana may start one more.
    expect((await claimSlot(a.db, 'ana', 'A', limits, now + 61_000)).ok).toBe(true);
    expect(await claimSlot(a.db, 'ana', 'A', limits, now + 61_000)).toEqual({ ok: false, reason: 'owner', held: 2 });
  });

  it('never grants more slots than the limit to claims racing from two processes', async () => {
    const target = await engine.fresh();
    opened.push(await openStore(target)); // migrated before the race
    const race = () =>
      execFileAsync(process.execPath, ['--import', 'tsx', 'tests/support/claim-slots.ts'], {
        env: { ...process.env, CLAIM_TARGET: JSON.stringify(target) },
      });
    const outcomes = await Promise.all([race(), race()]);
    expect(outcomes.reduce((sum, { stdout }) => sum + Number(stdout.trim()), 0)).toBe(3);
  });

  it("shares the upstream's pause, only ever extending it", async () => {
    const [a, b] = await twoInstances();
    expect(await readPause(b.db)).toBe(0);
    const until = Date.now() + 20_000;
    await publishPause(a.db, until);
    expect(await readPause(b.db)).toBe(until);
    await publishPause(b.db, until - 5_000);
    expect(await readPause(a.db)).toBe(until);
    await publishPause(b.db, until + 1_000);
    expect(await readPause(a.db)).toBe(until + 1_000);
  });

  it('prunes rows that have run out, and only those', async () => {
    const [{ db }] = await twoInstances();
    const now = Date.now();
    await db
      .insertInto('rate_limits')
      .values([
        { key: 'old', points: 3, expire: now - 2 * 3_600_000 },
        { key: 'recent', points: 3, expire: now - 60_000 },
        { key: 'open', points: 1, expire: null },
      ])
      .execute();
    await revokeSession(db, 'gone', now - 1, now - 2);
    await revokeSession(db, 'kept', now + 60_000, now - 2);
    await claimSlot(db, 'ana', 'A', { perOwner: 5, perInstance: 5, leaseMs: 1 }, now - 10);
    await pruneExpired(db, now);
    expect((await db.selectFrom('rate_limits').select('key').orderBy('key').execute()).map((row) => row.key)).toEqual(['open', 'recent']);
    expect((await db.selectFrom('revoked_sessions').select('sid').execute()).map((row) => row.sid)).toEqual(['kept']);
    expect(await db.selectFrom('walk_slots').selectAll().execute()).toEqual([]);
  });

  it('counts sign-in failures across instances (rate-limiter-flexible on the store)', async () => {
    const [a, b] = await twoInstances();
    const options = { keyPrefix: 'test', points: 3, duration: 60 };
    const [onA, onB] = [storeRateLimiter(a, options), storeRateLimiter(b, options)];
    await onA.consume('ana');
    await onB.consume('ana');
    await onA.consume('ana');
    await expect(onB.consume('ana')).rejects.toMatchObject({ remainingPoints: 0 });
    expect((await onA.get('ana'))?.consumedPoints).toBe(4);
    expect(await onB.get('bo')).toBeNull();
  });
});
