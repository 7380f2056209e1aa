import { performance } from 'node:perf_hooks';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePicks } from './sandbox/data';
import { versionOf } from './lib/history/version';
import { recordVersions } from './lib/store/history';
import { eachVersionAt } from './lib/store/history-read';
import { openStore } from './lib/store/open';
import { momentStream } from './lib/history/files';
import { startPostgres } from './tests/support/postgres';
const engine = process.argv[2] ?? 'sqlite';
const pg = engine === 'postgres' ? (await startPostgres())! : null;
const target = pg ? { engine: 'postgres' as const, url: await pg.createDatabase('tmp_pit'), label: 'pg' } : { engine: 'sqlite' as const, file: path.join(mkdtempSync(path.join(tmpdir(), 'pit-')), 'p.sqlite'), label: 'sqlite' };
const store = await openStore(target);
const recs = generatePicks({ count: 45000, seed: 3, anchorMs: Date.now() }).map((s) => ({ ...s.body, status: 'upcoming' }) as any);
for (let day = 0; day < 3; day++) await recordVersions(store.db, recs.map((r, i) => versionOf(i % 3 <= day ? { ...r, status: ['upcoming', 'live', 'settled'][day] } : r)), 1000 + day, 'poll');
const mode = process.argv[3] ?? 'stream';
for (let i = 0; i < 5; i++) {
  const t = performance.now(); let n = 0;
  if (mode === 'read') { for await (const b of eachVersionAt(store.db, 5000, {})) n += b.length; }
  else { const s = await momentStream(store.db, 5000, {}, 'json', {}, { proof: null, onCount: (c) => (n = c) }); for await (const _ of s as unknown as AsyncIterable<Uint8Array>) void _; }
  console.log(`${engine} ${mode} ${(performance.now() - t).toFixed(0)} ms (${n})`);
}
await store.close(); pg?.destroy();
