import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/** `npm start` with a real upstream refuses unsafe settings before building or serving anything (issue 11). */

const run = promisify(execFile);
const start = (env: Record<string, string>) =>
  run(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'scripts/start.ts'], {
    env: {
      NODE_ENV: 'production',
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: '3999',
      PORTAL_USERS_FILE: '/nonexistent/users.json',
      ...env,
    },
    timeout: 30_000,
  }).then(
    () => null,
    (error: { code: number; stderr: string }) => error,
  );

const real = {
  PICKS_API_BASE_URL: 'https://api.example.com',
  PICKS_API_KEY: 'k-123',
  AUTH_SECRET: 'x'.repeat(40),
  NEXTAUTH_URL: 'https://portal.example.com',
};

describe('npm start refuses', () => {
  it.each([
    [{ NEXTAUTH_URL: '' }, 'NEXTAUTH_URL is required in production'],
    [{ AUTH_SECRET: '' }, 'AUTH_SECRET is required in production'],
    [{ AUTH_SECRET: 'too-short' }, 'AUTH_SECRET must be at least 32 bytes'],
    [{ PICKS_API_BASE_URL: 'http://api.example.com' }, 'PICKS_API_BASE_URL must use https'],
    [{ TRUSTED_PROXIES: 'everyone' }, 'TRUSTED_PROXIES has "everyone"'],
    [{ PICKS_ME_FIELDS: 'leagues:licences..scope' }, 'PICKS_ME_FIELDS has the path "licences..scope"'],
  ])(
    '%o',
    async (change, message) => {
      const failure = await start({ ...real, ...change });
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toContain(message);
      expect(failure?.stderr).not.toContain('k-123');
    },
    40_000,
  );

  it('demo mode cannot be switched on from outside: PORTAL_SANDBOX is ignored with a real upstream', async () => {
    const failure = await start({ ...real, NEXTAUTH_URL: '', PORTAL_SANDBOX: '1' });
    expect(failure?.stderr).toContain('NEXTAUTH_URL is required in production');
  }, 40_000);
});
