import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { csvHeader, csvLines } from '@/lib/export/csv';
import { createPicksClient } from '@/lib/picks-api/client';
import type { Pick } from '@/lib/picks-api/schemas';
import { sandboxOverHttp } from '../support/sandbox';

/** `npm run export` against the sandbox over real HTTP: the same code and failure rule as the portal's exports. */

const run = promisify(execFile);
const upstream = sandboxOverHttp();
// Its own embedded store (exports are recorded in the audit trail), not the checkout's .data shared with other runs.
const dataDir = mkdtempSync(path.join(tmpdir(), 'export-command-data-'));

const exportCommand = (args: string[], key = 'sandbox-full-key') =>
  run('npm', ['run', '-s', 'export', '--', ...args], {
    env: { ...process.env, PICKS_API_BASE_URL: upstream.baseUrl, PICKS_API_KEY: key, PORTAL_DATA_DIR: dataDir, DATABASE_URL: '' },
    maxBuffer: 64 * 1024 * 1024,
  });

describe('npm run export', () => {
  it('writes every matching record as CSV to standard output, byte for byte the rows of a direct walk', async () => {
    const records: Pick[] = [];
    for await (const pick of createPicksClient({ baseUrl: upstream.baseUrl, apiKey: 'sandbox-full-key' }).walkPicks({
      league: 'Trinidad & Tobago Premier League',
      status: 'settled',
    }))
      records.push(pick);
    const expected = records.map((pick) => pick.id!);
    const { stdout, stderr } = await exportCommand([
      'picks',
      '--format',
      'csv',
      '--league',
      'Trinidad & Tobago Premier League',
      '--status',
      'settled',
    ]);
    const ids = Papa.parse<Record<string, string>>(stdout, { header: true, skipEmptyLines: true }).data.map((row) => row.id);
    expect(ids).toEqual(expected);
    // The export reads the upstream's bodies as byte strings (lib/picks-api/byte-strings.ts); the direct walk
    // decodes them. Text beyond ASCII (the sandbox's © and —) must come out the same.
    expect(stdout).toBe(csvHeader() + csvLines(records));
    expect(stdout).toMatch(/©.*—|—.*©/);
    expect(stderr).toContain(`exported ${expected.length} records`);
  }, 60_000);

  it('writes JSON to a file only when complete, readable by its owner only, never through a planted file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'export-'));
    const file = path.join(dir, 'results.json');
    // What a neighbour could plant where a predictable temporary name used to be: a link to a file of ours.
    writeFileSync(path.join(dir, 'victim.txt'), 'untouched');
    symlinkSync(path.join(dir, 'victim.txt'), `${file}.partial`);
    await exportCommand(['results', '--format', 'json', '--sport', 'Cricket', '--output', file]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(dir, 'victim.txt'), 'utf8')).toBe('untouched');
    expect(readdirSync(dir).sort()).toEqual(['results.json', 'results.json.partial', 'victim.txt']);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(doc.count).toBe(doc.data.length);
    expect(doc.data.every((p: { status: string; sport: string }) => p.status === 'settled' && p.sport === 'Cricket')).toBe(true);
  }, 60_000);

  it('fails with a non-zero exit and leaves no file when the upstream refuses', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'export-')), 'picks.csv');
    const failure = await exportCommand(['picks', '--format', 'csv', '--output', file], 'sandbox-suspended-key').then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain('LICENCE_UNAVAILABLE');
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(path.dirname(file))).toEqual([]);
  }, 60_000);

  it('refuses bad filters and formats before asking the upstream', async () => {
    const before = upstream.sandbox.stats.requests;
    const bad = await exportCommand(['picks', '--format', 'csv', '--status', 'finished']).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(bad?.code).toBe(1);
    expect(bad?.stderr).toContain('status must be one of');
    const format = await exportCommand(['picks', '--format', 'xlsx']).then(
      () => null,
      (error: { code: number }) => error,
    );
    expect(format?.code).toBe(1);
    expect(upstream.sandbox.stats.requests).toBe(before);
  }, 60_000);
});
