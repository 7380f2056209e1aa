import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAuditQuery } from '@/lib/audit/query';
import { auditResponse } from '@/lib/http/audit';
import { closeStore, getStore } from '@/lib/store';
import { appendAudit, entryHash, GENESIS, latestAudit, toRow, type AuditInput } from '@/lib/store/audit';

/** The audit trail from outside: `npm run audit -- verify`, and GET /api/audit's file with 100,000 entries. */

const run = promisify(execFile);
let env: Record<string, string>;

const input = (i: number): AuditInput => ({
  actor: i % 3 ? 'ana@example.com' : 'cli',
  role: i % 3 ? 'editor' : null,
  action: i % 2 ? 'export.picks' : 'sign-in',
  target: `picks-${i}.csv`,
  filters: { sport: 'Tennis' },
  outcome: i % 7 ? 'complete' : 'failed',
  errorCode: i % 7 ? null : 'UPSTREAM_ERROR',
  records: i,
  bytes: i * 100,
  sha256: 'cd'.repeat(32),
  durationMs: 5,
  requestIds: [`req_${i}`],
  address: '198.51.100.7',
  licence: 'LIC-1',
});

beforeAll(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'audit-trail-'));
  env = { DATABASE_URL: '', PORTAL_DATA_DIR: dir, PORTAL_USERS_FILE: path.join(dir, 'none.json') };
  await closeStore();
  Object.assign(process.env, env);
});
afterAll(() => closeStore());

describe('npm run audit -- verify', () => {
  it('passes on an intact chain and names the first entry that does not fit once one is removed', async () => {
    const { db } = await getStore();
    for (let i = 1; i <= 5; i += 1) await appendAudit(db, input(i));
    const audit = (...args: string[]) => run('npm', ['run', '-s', 'audit', '--', ...args], { env: { ...process.env, ...env } });
    expect((await audit('verify')).stdout).toMatch(/5 entries, chain intact; head [0-9a-f]{64}/);
    await db.deleteFrom('audit_log').where('seq', '=', 3).execute();
    const failed = (await audit('verify').catch((error: unknown) => error)) as { code: number; stderr: string };
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('entry 4 does not fit: entries 3–3 before it are missing');
    await db.deleteFrom('audit_log').execute();
  }, 60_000);
});

describe('the audit file', () => {
  it('refuses unknown filters and values with the portal error, naming them', () => {
    expect(() => parseAuditQuery(new URLSearchParams('colour=red'))).toThrow(/colour is not a filter of the audit trail/);
    expect(() => parseAuditQuery(new URLSearchParams('%3Cimg%20src%3Dx%3E=1'))).toThrow(
      /\(a parameter name not shown\) is not a filter of the audit trail/,
    );
    expect(() => parseAuditQuery(new URLSearchParams('outcome=maybe'))).toThrow(/outcome/);
    expect(() => parseAuditQuery(new URLSearchParams('from=yesterday'))).toThrow(/from must be a UTC day/);
    expect(() => parseAuditQuery(new URLSearchParams('action=sign-in&action=sign-out'))).toThrow(/action is given more than once/);
    expect(parseAuditQuery(new URLSearchParams('from=2026-11-01&to=2026-11-02&format=csv'))).toEqual({
      format: 'csv',
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-11-03T00:00:00.000Z',
    });
  });

  it('streams 100,000 entries without holding them: every row arrives, memory stays flat', async () => {
    const { db } = await getStore();
    // A chain written in bulk (the same hashes appendAudit would make), to keep the setup quick.
    let prevHash = GENESIS;
    for (let start = 1; start <= 100_000; start += 1_000) {
      const rows = [];
      for (let seq = start; seq < start + 1_000; seq += 1) {
        const entry = {
          ...input(seq),
          walk: null,
          proof: null,
          seq,
          at: new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString(),
          prevHash,
        };
        const hash = entryHash(entry);
        prevHash = hash;
        rows.push(toRow({ ...entry, hash }));
      }
      await db.insertInto('audit_log').values(rows).execute();
    }
    if (!global.gc) throw new Error('run with --expose-gc (vitest.config.ts)');
    global.gc();
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    const admin = { email: 'admin@example.com', role: 'admin' };
    const res = await auditResponse(new Request('http://portal/api/audit?format=csv'), admin);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let lines = 0;
    let bytes = 0;
    let chunks = 0;
    let tail = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.byteLength;
      if ((chunks += 1) % 25 === 0) {
        global.gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - before); // what is alive mid-download
      }
      const text = tail + decoder.decode(chunk.value, { stream: true });
      const parts = text.split('\r\n');
      tail = parts.pop()!;
      lines += parts.length;
    }
    expect(lines).toBe(100_001); // the header and every entry
    expect(bytes).toBeGreaterThan(30_000_000);
    expect(peak).toBeLessThan(bytes / 10); // a file held in memory would be at least its own size
    // The download itself is in the trail, like any export: its count and bytes, for its signed manifest.
    const [recorded] = await latestAudit(db, { action: 'export.audit' }, 1);
    expect(recorded).toMatchObject({
      actor: 'admin@example.com',
      outcome: 'complete',
      records: 100_000,
      bytes,
      target: expect.stringMatching(/^audit-.*\.csv$/),
    });
    const last = await auditResponse(new Request('http://portal/api/audit?format=json&from=2026-01-02T03:46:00Z&outcome=failed'), admin);
    const body = (await last.json()) as { entries: { seq: number; outcome: string }[]; count: number; complete: boolean };
    expect(body.complete).toBe(true);
    expect(body.entries.every((entry) => entry.outcome === 'failed' && entry.seq >= 99_960)).toBe(true);
    expect(body.count).toBe(body.entries.length);
    expect(body.count).toBeGreaterThan(0);
  }, 120_000);
});
