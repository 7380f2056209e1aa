import { execFile } from 'node:child_process';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { recordSignInFailure, recordSignInSuccess, signInWait } from '@/lib/auth/sign-in-throttle';
import { addUser, findUser, readUsers, removeUser } from '@/lib/auth/users';

const run = promisify(execFile);

describe('users file', () => {
  it('adds, finds case-insensitively, replaces, removes; stores only a hash, readable by its owner only', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'users-')), 'users.json');
    await addUser(file, 'Ana@Example.com', 'editor', 'first password');
    await addUser(file, 'ana@example.com', 'admin', 'second password');
    expect((await readUsers(file)).map((u) => [u.email, u.role])).toEqual([['ana@example.com', 'admin']]);
    expect((await findUser(file, 'ANA@example.com'))?.role).toBe('admin');
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('second password');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await removeUser(file, 'ana@example.com')).toBe(true);
    expect(await readUsers(file)).toEqual([]);
  });

  it('refuses short passwords and non-addresses', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'users-')), 'users.json');
    await expect(addUser(file, 'a@b.io', 'viewer', 'short')).rejects.toThrow('at least 10');
    await expect(addUser(file, 'not-an-address', 'viewer', 'long enough pw')).rejects.toThrow('not an email');
  });
});

describe('npm run users', () => {
  it('reads the password from standard input', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'users-')), 'users.json');
    const env = { ...process.env, PORTAL_USERS_FILE: file };
    const child = run('npm', ['run', '-s', 'users', '--', 'add', 'cli@example.com', '--role', 'manager'], { env });
    child.child.stdin?.end('piped password\n');
    expect((await child).stdout).toContain('saved cli@example.com (manager)');
    const { stdout } = await run('npm', ['run', '-s', 'users', '--', 'list'], { env });
    expect(stdout).toMatch(/^cli@example\.com\tmanager\t/m);
    await expect(run('npm', ['run', '-s', 'users', '--', 'add', 'x@example.com', '--role', 'root'], { env })).rejects.toMatchObject({ stderr: expect.stringContaining('--role must be one of') });
  }, 60_000);
});

describe('sign-in throttle', () => {
  it('lets five failures through, then makes each further attempt wait longer', () => {
    const keys = [`account:t${Math.random()}`];
    const now = 1_000_000;
    for (let i = 0; i < 5; i += 1) {
      expect(signInWait(keys, now)).toBe(0);
      recordSignInFailure(keys, now);
    }
    expect(signInWait(keys, now)).toBe(0);
    recordSignInFailure(keys, now);
    expect(signInWait(keys, now)).toBe(2);
    recordSignInFailure(keys, now);
    expect(signInWait(keys, now)).toBe(4);
    recordSignInSuccess(keys);
    expect(signInWait(keys, now)).toBe(0);
  });
});
