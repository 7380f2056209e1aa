import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPOOL_IDLE_MS, sweepSpool } from '@/lib/deliveries/spool-sweep';

/** The spool directory swept of what stopped processes left: only their files, only when long untouched. */

const NOW = Date.parse('2026-11-26T12:00:00Z');
const aged = (file: string, ms: number) => utimesSync(file, new Date(NOW - ms), new Date(NOW - ms));

describe('sweeping the spool directory', () => {
  it("removes a stopped run's folder and a stopped capture, never a live one or anything else", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spool-sweep-'));
    const file = (name: string, ms: number) => {
      writeFileSync(path.join(dir, name), 'x');
      aged(path.join(dir, name), ms);
    };
    file('capture-exp_old.bin', SPOOL_IDLE_MS + 60_000);
    file('capture-exp_live.bin', 60_000);
    file('notes.txt', SPOOL_IDLE_MS * 10);
    file('capture-exp_old.txt', SPOOL_IDLE_MS * 10);
    // A run's folder: old itself, but a file in it written a minute ago (a long run, still going).
    for (const [name, fileMs] of [
      ['picks-delivery-stopped', SPOOL_IDLE_MS + 60_000],
      ['picks-delivery-running', 60_000],
    ] as const) {
      mkdirSync(path.join(dir, name, 'part'), { recursive: true });
      writeFileSync(path.join(dir, name, 'part', 'file.csv'), 'x');
      aged(path.join(dir, name, 'part', 'file.csv'), fileMs);
      aged(path.join(dir, name, 'part'), SPOOL_IDLE_MS * 2);
      aged(path.join(dir, name), SPOOL_IDLE_MS * 2);
    }
    expect((await sweepSpool(dir, SPOOL_IDLE_MS, NOW)).sort()).toEqual(['capture-exp_old.bin', 'picks-delivery-stopped']);
    expect(readdirSync(dir).sort()).toEqual(['capture-exp_live.bin', 'capture-exp_old.txt', 'notes.txt', 'picks-delivery-running']);
  });

  it('finds nothing to do in a spool directory not made yet', async () => {
    expect(await sweepSpool(path.join(tmpdir(), 'spool-sweep-none', String(NOW)))).toEqual([]);
  });
});
