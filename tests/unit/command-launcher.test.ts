import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/** scripts/run.mjs (ADR 0018): what starts the portal's commands, and only them. */

const run = promisify(execFile);
const dataDir = mkdtempSync(path.join(tmpdir(), 'launcher-'));
// The launcher's own temporary directory goes here (TMPDIR), to see that it is gone after each command.
const temp = path.join(dataDir, 'tmp');
mkdirSync(temp);
const launch = (...args: string[]) =>
  run(process.execPath, ['--enable-source-maps', '--conditions=react-server', 'scripts/run.mjs', ...args], {
    env: { ...process.env, PORTAL_DATA_DIR: dataDir, DATABASE_URL: '', TMPDIR: temp },
  }).then(
    (done) => ({ code: 0, ...done }),
    (failed: { code: number; stdout: string; stderr: string }) => failed,
  );

describe('the command launcher', () => {
  it('starts every command package.json names through it, and no other', () => {
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    const launched = Object.entries(scripts).filter(([, line]) => line.includes('scripts/run.mjs'));
    expect(launched.map(([name]) => name).sort()).toEqual([
      'audit',
      'backup',
      'dev',
      'export',
      'index',
      'proof',
      'restore',
      'start',
      'users',
    ]);
    for (const [, line] of launched)
      expect(line).toMatch(/^node --enable-source-maps --conditions=react-server scripts\/run\.mjs [a-z]+( [a-z-]+)*$/);
  });

  it('refuses a name that is not a command (a path included) and runs nothing', async () => {
    for (const name of ['../sandbox/main', 'screens', 'users.ts', '']) {
      const failed = await launch(...(name ? [name] : []));
      expect(failed.code).toBe(2);
      expect(failed.stderr).toContain('usage: node scripts/run.mjs <start|users|export|audit|proof|backup|index>');
      expect(failed.stdout).toBe('');
    }
  });

  it("runs a command with its arguments, and a command's own refusal keeps its words and exit code", async () => {
    const failed = await launch('users', 'frobnicate');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('usage:\n  npm run users -- add <email>');
    expect(failed.stderr).not.toMatch(/\n\s+at /); // a refusal, not a stack
    expect(readdirSync(temp)).toEqual([]); // the bundle it ran is removed with it
  });
});
