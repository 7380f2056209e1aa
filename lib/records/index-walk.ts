import 'server-only';
import type { Kysely } from 'kysely';
import { registerJob } from '../jobs/registry';
import { log } from '../log';
import { picksApi } from '../picks-api';
import { recordVersions } from '../store/history';
import { readMeta, writeMeta } from '../store/meta';
import type { Database } from '../store/schema';
import { versionOf, type Version } from '../vocabulary/version';

/**
 * The whole licensed set read into the record history, which the index of the licensed set follows
 * (./index-keeper.ts): once at the first start (the index would otherwise hold only what the feed's window and the
 * files have seen), then every INDEX_WALK_HOURS for what lies outside the polls' window — the polls themselves do
 * not grow. With the partner key, in the upstream gate's bulk lane, one instance at a time; `npm run index -- rebuild
 * --walk` makes the same walk by hand.
 */

type Db = Kysely<Database>;
const WALKED_AT = 'record-index-walked-at';
const BATCH = 500;
/** How often the job looks whether a walk is due (its lease lasts half as long again). */
const LOOK_EVERY_MS = 3_600_000;

/** Reads every record of the licensed set into the record history; how many. */
export async function walkWholeSet(db: Db, signal?: AbortSignal): Promise<number> {
  let walked = 0;
  let batch: Version[] = [];
  const keep = async () => {
    if (batch.length > 0) await recordVersions(db, batch, Date.now(), 'poll');
    walked += batch.length;
    batch = [];
  };
  for await (const record of picksApi().walkPicks({}, { priority: 'bulk', signal })) {
    if (typeof record.id !== 'string') continue;
    batch.push(versionOf(record as Record<string, unknown> & { id: string }));
    if (batch.length >= BATCH) await keep();
  }
  await keep();
  await writeMeta(db, WALKED_AT, String(Date.now()));
  return walked;
}

/** When the whole set was last walked into the history (null: never). */
export async function lastWholeWalk(db: Db): Promise<number | null> {
  const at = await readMeta(db, WALKED_AT);
  return at ? Number(at) : null;
}

/** The job (lib/jobs/registry.ts): a walk a minute after the first start, then one every `everyHours` (0: none). */
export function startIndexWalks(db: Db, everyHours: number, firstAfterMs = 60_000): void {
  if (everyHours <= 0) return;
  registerJob({
    name: 'record-index-walk',
    everyMs: Math.min(LOOK_EVERY_MS, everyHours * 3_600_000),
    lease: 'one instance',
    firstAfterMs,
    run: async (signal) => {
      const last = await lastWholeWalk(db);
      if (last !== null && Date.now() - last < everyHours * 3_600_000) return 'skipped';
      const started = Date.now();
      const walked = await walkWholeSet(db, signal);
      log('records').info({ walked, ms: Date.now() - started }, 'the whole licensed set was read into the record history for the index');
    },
  });
}
