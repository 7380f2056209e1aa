import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { countResettled } from '@/lib/store/delivered';
import { openStore, type Store } from '@/lib/store/open';
import type { Database } from '@/lib/store/schema';

/**
 * The overview and each delivery's page count the records re-settled after delivery on every view, on the
 * serving thread: the count must look records up from their newer versions, never scan every delivered row
 * (which grows with every export and run kept: 480,000 rows took 350 ms).
 */
describe('counting records re-settled after delivery', () => {
  let store: Store | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  it('reaches every table through an index; for every delivery, from the versions first seen in the window', async () => {
    store = await openStore({ engine: 'sqlite', file: path.join(await mkdtemp(path.join(tmpdir(), 'plan-')), 'p.sqlite'), label: 'test' });
    const sqlite = store.sqlite!;
    const seen: CompiledQuery[] = [];
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log: (event) => void seen.push(event.query) });
    for (const delivery of [null, 'dlv_00000000000000aa']) {
      seen.length = 0;
      expect(await countResettled(db, Date.now() - 7 * 86_400_000, delivery)).toBe(0);
      expect(seen).toHaveLength(1);
      const plan = sqlite.prepare(`explain query plan ${seen[0]!.sql}`).all(...(seen[0]!.parameters as unknown[])) as Array<{
        detail: string;
      }>;
      const details = plan.map((row) => row.detail);
      // Every table reached through an index; for every delivery (the overview), from the window's new versions.
      expect(details.filter((d) => /^SCAN/.test(d))).toEqual([]);
      if (delivery === null) {
        expect(details).toContain('SEARCH v USING INDEX record_versions_first (first_ms>?)');
        expect(details.some((d) => /^SEARCH d USING INDEX delivered_versions_pick \(pick_id=\?/.test(d))).toBe(true);
      }
    }
  });
});
