import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The systemd unit docs/deployment.md gives (docs/deploy/picks-portal@.service): systemd's own checker finds
 * nothing wrong in it, it runs what `npm start` runs, and it waits longer than the portal's drain before
 * killing it. (The nginx configuration beside it is run by tests/e2e/deployment.spec.ts.)
 */

const UNIT = 'docs/deploy/picks-portal@.service';
const ANALYZE = '/usr/bin/systemd-analyze';
const analyzeMissing = !existsSync(ANALYZE);
if (analyzeMissing && process.env.CI) throw new Error(`${ANALYZE} is missing: .ci/run installs Debian's systemd`);

const setting = (name: string) =>
  readFileSync(UNIT, 'utf8')
    .split('\n')
    .find((line) => line.startsWith(`${name}=`))
    ?.slice(name.length + 1);

describe('the systemd unit', () => {
  it.skipIf(analyzeMissing)('passes systemd-analyze verify for an instance', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'unit-'));
    copyFileSync(UNIT, path.join(dir, 'picks-portal@.service'));
    const checked = spawnSync(ANALYZE, ['verify', path.join(dir, 'picks-portal@3000.service')], { encoding: 'utf8' });
    // Only what concerns the unit itself: the checker may also grumble about the machine's other units.
    const about = `${checked.stderr}${checked.stdout}`
      .split('\n')
      .filter((line) => line.includes('picks-portal'))
      .join('\n');
    expect(about).toBe('');
    expect(checked.status).toBe(0);
  });

  it('starts what `npm start` starts, and waits out the drain before killing', () => {
    const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
    expect(setting('ExecStart')).toBe(start.replace(/^node /, '/usr/bin/node '));
    expect(setting('KillSignal')).toBe('SIGTERM');
    // SHUTDOWN_GRACE_SECONDS is 30 by default: the unit must not kill the portal before its drain ends.
    expect(Number(setting('TimeoutStopSec'))).toBeGreaterThan(30);
    expect(setting('Environment')).toContain('PORT=%i');
  });
});
