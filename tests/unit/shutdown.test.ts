import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

/** The end of a stop's grace (lib/start/shutdown.ts): exports still running are cut, and given a moment to record themselves. */

beforeAll(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'shutdown-'));
  Object.assign(process.env, { DATABASE_URL: '', PORTAL_DATA_DIR: dir, PORTAL_USERS_FILE: path.join(dir, 'none.json') });
});

describe('shutdownPortal', () => {
  it('lets the requests being answered finish before it closes the store', async () => {
    const { shutdownPortal } = await import('@/lib/start/shutdown');
    const { server } = await import('@/lib/process-state');
    const { resetDraining } = await import('@/lib/draining');
    let answering = 2;
    server.inFlight = () => answering;
    setTimeout(() => (answering = 1), 150);
    setTimeout(() => (answering = 0), 300);
    const started = Date.now();
    await shutdownPortal(10_000, await mkdtemp(path.join(tmpdir(), 'data-')), () => undefined);
    expect(answering).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    delete server.inFlight;
    resetDraining(); // the next test stops again
  });

  it('cuts what can be cut when the grace runs out, waits for it to end, and leaves delivery runs to be retried elsewhere', async () => {
    const { shutdownPortal } = await import('@/lib/start/shutdown');
    const { trackWalk, runningWalks, graceEnded } = await import('@/lib/draining');
    const cut: string[] = [];
    // An export: cut, it records itself (here: 100 ms) and releases its slot.
    const releaseExport = trackWalk(() => {
      cut.push('export');
      setTimeout(() => releaseExport(), 100);
    });
    // A delivery run: no cut; it keeps running until the process exits.
    trackWalk();
    const lines: string[] = [];
    const started = Date.now();
    await shutdownPortal(300, await mkdtemp(path.join(tmpdir(), 'data-')), (line) => lines.push(line));
    expect(cut).toEqual(['export']);
    expect(runningWalks()).toBe(1); // the delivery run, left running
    expect(graceEnded()).toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(lines.join('\n')).toMatch(/the grace ran out: 1 export cut, recorded cancelled/);
    expect(lines.join('\n')).toMatch(/stopped after 0 s with 2 exports or runs still running/);
  });
});
