import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { addUser, findUser, readUsers, removeUser, updateUser } from '@/lib/auth/users';

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

  it('loses no write when many writers change the file at once (locked read-modify-write)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'users-'));
    const file = path.join(dir, 'users.json');
    const emails = Array.from({ length: 12 }, (_, i) => `u${i}@example.com`);
    await Promise.all(emails.map((email) => addUser(file, email, 'viewer', 'long enough pw')));
    expect((await readUsers(file)).map((u) => u.email).sort()).toEqual([...emails].sort());
    await Promise.all([
      ...emails.slice(0, 6).map((email) => removeUser(file, email)),
      ...emails.slice(6).map((email) => updateUser(file, email, { role: 'editor', disabled: true })),
    ]);
    const left = await readUsers(file);
    expect(left.map((u) => [u.email, u.role, u.disabled]).sort()).toEqual(
      emails
        .slice(6)
        .map((email) => [email, 'editor', true])
        .sort(),
    );
    // No temp or lock file is left behind, and none was ever predictable (random suffix, O_EXCL).
    expect((await readdir(dir)).sort()).toEqual(['users.json']);
  });

  it('changes a role and the disabled flag, and says when there is no such user', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'users-')), 'users.json');
    await addUser(file, 'd@example.com', 'admin', 'long enough pw', { demo: true });
    expect(await updateUser(file, 'D@example.com', { role: 'viewer' })).toBe(true);
    expect(await updateUser(file, 'd@example.com', { disabled: true })).toBe(true);
    expect(await findUser(file, 'd@example.com')).toMatchObject({ role: 'viewer', disabled: true, demo: true });
    expect(await updateUser(file, 'd@example.com', { disabled: false })).toBe(true);
    expect((await findUser(file, 'd@example.com'))?.disabled).toBeUndefined();
    expect(await updateUser(file, 'nobody@example.com', { role: 'admin' })).toBe(false);
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
    await expect(run('npm', ['run', '-s', 'users', '--', 'add', 'x@example.com', '--role', 'root'], { env })).rejects.toMatchObject({
      stderr: expect.stringContaining('--role must be one of'),
    });
    await run('npm', ['run', '-s', 'users', '--', 'role', 'cli@example.com', '--role', 'viewer'], { env });
    await run('npm', ['run', '-s', 'users', '--', 'disable', 'cli@example.com'], { env });
    expect((await run('npm', ['run', '-s', 'users', '--', 'list'], { env })).stdout).toMatch(/^cli@example\.com\tviewer\t\S+\tdisabled$/m);
  }, 60_000);
});
