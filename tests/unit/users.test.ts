import { execFile } from 'node:child_process';
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { addUser, findUser, listUsers, recordSignIn, removeUser, setPassword, updateUser } from '@/lib/auth/users';
import { verifyPassword } from '@/lib/auth/passwords';
import { closeStore, getStore } from '@/lib/store';
import { storeEngines, storeEnv } from '../support/store-engines';

/** The account rules (lib/auth/users.ts) over the process's store, and `npm run users` beside it, on both engines. */

const run = promisify(execFile);
afterAll(() => closeStore());

describe.each(storeEngines())('accounts on $name', (engine) => {
  let env: Record<string, string>;
  beforeEach(async () => {
    await closeStore();
    env = storeEnv(await engine.fresh());
    Object.assign(process.env, env);
  });

  it('adds, finds case-insensitively, replaces, removes; keeps only a scrypt hash', async () => {
    await addUser('Ana@Example.com', 'editor', 'first password');
    await addUser('ana@example.com', 'admin', 'second password');
    expect((await listUsers()).map((u) => [u.email, u.role])).toEqual([['ana@example.com', 'admin']]);
    const ana = await findUser('ANA@example.com');
    expect(ana?.passwordHash).toMatch(/^scrypt\$/);
    expect(ana?.passwordHash).not.toContain('second password');
    expect(await verifyPassword('second password', ana!.passwordHash)).toBe(true);
    expect(await removeUser('ana@EXAMPLE.com')).toBe(true);
    expect(await listUsers()).toEqual([]);
    const { target } = await getStore();
    if (target.engine === 'sqlite') {
      expect((await stat(path.dirname(target.file))).mode & 0o077).toBe(0);
      expect((await stat(target.file)).mode & 0o077).toBe(0);
    }
  });

  it('changes a role, the disabled flag and the password, and says when there is no such user', async () => {
    await addUser('d@example.com', 'admin', 'long enough pw', { demo: true });
    expect(await updateUser('d@example.com', { role: 'viewer' })).toBe(true);
    expect(await updateUser('d@example.com', { disabled: true })).toBe(true);
    expect(await findUser('d@example.com')).toMatchObject({ role: 'viewer', disabled: true, demo: true });
    expect(await updateUser('d@example.com', { disabled: false })).toBe(true);
    expect((await findUser('d@example.com'))?.disabled).toBe(false);
    expect(await setPassword('d@example.com', 'a new long password')).toBe(true);
    expect(await verifyPassword('a new long password', (await findUser('d@example.com'))!.passwordHash)).toBe(true);
    expect(await updateUser('nobody@example.com', { role: 'admin' })).toBe(false);
    await expect(setPassword('d@example.com', 'short')).rejects.toThrow('at least 10');
  });

  it('refuses short passwords and non-addresses', async () => {
    await expect(addUser('a@b.io', 'viewer', 'short')).rejects.toThrow('at least 10');
    await expect(addUser('not-an-address', 'viewer', 'long enough pw')).rejects.toThrow('not an email');
    expect(await listUsers()).toEqual([]);
  });

  it('npm run users works on the same store, reading the password from standard input', async () => {
    const users = (...args: string[]) => run('npm', ['run', '-s', 'users', '--', ...args], { env: { ...process.env, ...env } });
    const child = users('add', 'cli@example.com', '--role', 'manager');
    child.child.stdin?.end('piped password\n');
    expect((await child).stdout).toContain('saved cli@example.com (manager)');
    expect((await findUser('cli@example.com'))?.role).toBe('manager'); // this process sees the CLI's write at once
    await addUser('here@example.com', 'viewer', 'long enough pw');
    expect((await users('list')).stdout).toMatch(/^cli@example\.com\tmanager\t\S+\nhere@example\.com\tviewer\t\S+$/m);
    await expect(users('add', 'x@example.com', '--role', 'root')).rejects.toMatchObject({
      stderr: expect.stringContaining('--role must be one of'),
    });
    await users('role', 'cli@example.com', '--role', 'viewer');
    await users('disable', 'cli@example.com');
    expect(await findUser('cli@example.com')).toMatchObject({ role: 'viewer', disabled: true });
    await expect(users('remove', 'nobody@example.com')).rejects.toMatchObject({
      stderr: expect.stringContaining('no user nobody@example.com'),
    });
  }, 60_000);
  it('loses no write when npm run users and sign-ins change the store at once', async () => {
    const users = (...args: string[]) => run('npm', ['run', '-s', 'users', '--', ...args], { env: { ...process.env, ...env } });
    for (let i = 0; i < 10; i += 1) await addUser(`seen${i}@example.com`, 'viewer', 'long enough pw');
    const cli = [0, 1, 2].map((i) => {
      const child = users('add', `cli${i}@example.com`, '--role', 'editor');
      child.child.stdin?.end('piped password\n');
      return child;
    });
    // Meanwhile, what sign-ins write: the last sign-in time of ten accounts, over and over.
    const signIns = (async () => {
      for (let round = 0; round < 5; round += 1)
        await Promise.all(Array.from({ length: 10 }, (_, i) => recordSignIn(`seen${i}@example.com`)));
    })();
    await Promise.all([...cli, signIns]);
    const all = await listUsers();
    expect(all.filter((user) => user.email.startsWith('cli')).map((user) => user.role)).toEqual(['editor', 'editor', 'editor']);
    expect(all.filter((user) => user.email.startsWith('seen') && user.lastSignInAt !== null)).toHaveLength(10);
  }, 60_000);
});

describe('npm run users with a store it cannot use', () => {
  it('names a malformed DATABASE_URL', async () => {
    const failed = await run('npm', ['run', '-s', 'users', '--', 'list'], { env: { ...process.env, DATABASE_URL: 'mysql://x/y' } }).catch(
      (error: unknown) => error as { stderr: string },
    );
    expect((failed as { stderr: string }).stderr).toContain('DATABASE_URL must start with postgres://');
  }, 30_000);

  it('reports a damaged embedded database by its path', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'users-bad-'));
    await (await import('node:fs/promises')).writeFile(path.join(dir, 'portal.sqlite'), 'x'.repeat(5000));
    const failed = (await run('npm', ['run', '-s', 'users', '--', 'list'], {
      env: { ...process.env, DATABASE_URL: '', PORTAL_DATA_DIR: dir },
    }).catch((error: unknown) => error)) as { stderr: string };
    expect(failed.stderr).toContain(`${path.join(dir, 'portal.sqlite')} is damaged`);
  }, 30_000);
});
