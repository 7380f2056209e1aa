import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createPicksClient } from '@/lib/picks-api/client';
import { openStore, type Store } from '@/lib/store/open';
import { sandboxOverHttp } from '../support/sandbox';

/**
 * `npm run index -- rebuild --walk` against the sandbox over real HTTP, on an embedded store of its own: the whole
 * licensed set read into the record history and the index built from it — exactly the records a walk of the API
 * reads — and the rebuild recorded in the audit trail.
 */

const run = promisify(execFile);
const upstream = sandboxOverHttp({ picks: 1500 });
const dataDir = mkdtempSync(path.join(tmpdir(), 'index-command-'));
const opened: Store[] = [];
afterAll(() => Promise.all(opened.map((store) => store.close())));

describe('npm run index', () => {
  it('reads the whole licensed set from the upstream and indexes every record of it', async () => {
    const expected: string[] = [];
    for await (const pick of createPicksClient({ baseUrl: upstream.baseUrl, apiKey: 'sandbox-full-key' }).walkPicks({}))
      expected.push(pick.id!);
    const { stdout } = await run('npm', ['run', '-s', 'index', '--', 'rebuild', '--walk'], {
      env: {
        ...process.env,
        PICKS_API_BASE_URL: upstream.baseUrl,
        PICKS_API_KEY: 'sandbox-full-key',
        PORTAL_DATA_DIR: dataDir,
        DATABASE_URL: '',
      },
    });
    expect(stdout).toContain(`read ${expected.length.toLocaleString('en')} records of the licensed set`);
    expect(stdout).toContain(`the index of the licensed set holds ${expected.length.toLocaleString('en')} records`);
    const store = await openStore({ engine: 'sqlite', file: path.join(dataDir, 'portal.sqlite'), label: 'index' });
    opened.push(store);
    const ids = (await store.db.selectFrom('record_index').select('pick_id').execute()).map((row) => row.pick_id);
    expect(ids.sort()).toEqual([...expected].sort());
    const audited = await store.db.selectFrom('audit_log').selectAll().where('action', '=', 'index.rebuild').execute();
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ actor: 'cli', outcome: 'complete', records: expected.length });
    const bad = await run('npm', ['run', '-s', 'index', '--', 'rebuilt'], { env: { ...process.env, PORTAL_DATA_DIR: dataDir } }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('usage: npm run index -- rebuild [--walk]') });
  }, 90_000);
});
