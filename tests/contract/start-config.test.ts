import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/postgres';

/** `npm start` with a real upstream refuses unsafe settings, and a store it cannot use, before building or serving anything. */

const run = promisify(execFile);
// What `npm start` runs: package.json's line, less its leading `node` (run here with this Node itself).
const START = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ').slice(1);
const start = (env: Record<string, string>) =>
  run(process.execPath, START, {
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
    // What it said: the messages of its log lines (one JSON object each; lib/log/).
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: said(error.stderr) }),
  );

/** The messages of JSON log lines, one per line; a line that is not JSON is kept as it is. */
function said(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      try {
        return String((JSON.parse(line) as { msg: unknown }).msg);
      } catch {
        return line;
      }
    })
    .join('\n');
}

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

describe('npm start and the store', () => {
  it('names a malformed DATABASE_URL, without its password', async () => {
    const failure = await start({ ...real, DATABASE_URL: 'postgres//portal:pa55word@db/portal' });
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain('DATABASE_URL must be a URL');
    expect(failure?.stderr).not.toContain('pa55word');
  }, 40_000);

  it('stops on a damaged embedded database, naming its path and leaving it as it was', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'start-store-'));
    const file = path.join(dir, 'portal.sqlite');
    await writeFile(file, 'not a database '.repeat(400));
    const failure = await start({ ...real, PORTAL_DATA_DIR: dir });
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain(`${file} is damaged`);
    expect(await readFile(file, 'utf8')).toBe('not a database '.repeat(400));
  }, 40_000);

  it('says a PostgreSQL that cannot be reached cannot be reached, and keeps trying with backoff', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, START, {
      env: {
        NODE_ENV: 'production',
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...real,
        DATABASE_URL: `postgres://portal:pa55word@127.0.0.1:${port}/portal`,
      },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 20_000;
    while (!output.includes('trying again in 1 s') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill('SIGTERM');
    expect(output).toContain(`PostgreSQL at 127.0.0.1:${port}/portal cannot be reached (connect ECONNREFUSED`);
    expect(output).toMatch(/trying again in 0\.5 s[\s\S]*trying again in 1 s/);
    expect(output).not.toContain('pa55word');
  }, 40_000);
});
