import { sql, type Kysely, type SelectQueryBuilder, type Selectable } from 'kysely';
import type { ChangeEntry, ChangeKind, Display, Lifecycle, Plan, Snapshot } from '../vocabulary/changes';
import type { Version } from '../vocabulary/version';
import { takeFeed } from './change-feed';
import { lastEventSeq } from './events';
import { chunks, recordVersionsIn, recordWithdrawalsIn, versionsAsOf } from './history';
import type { ChangesTable, Database } from './schema';

/**
 * The change feed's records: what each watched record looked like (`watched`), and the entries each
 * poll found (`changes`). A poll's plan is applied in one transaction, fenced by the polling lease,
 * so a half walk or an instance that lost its lease writes nothing.
 */

type Db = Kysely<Database>;

export interface StoredChange extends ChangeEntry {
  seq: number;
  detectedAt: string;
}

export interface ChangeQuery {
  kind?: ChangeKind;
  sport?: string;
  league?: string;
  /** Detected strictly after this instant (ISO). */
  since?: string;
  /** Detected at or before this instant (ISO). */
  until?: string;
  /** Keyset paging of the page: entries older than this seq. */
  before?: number;
}

export class LeaseLost extends Error {
  constructor() {
    super('this instance no longer holds the change feed lease; its poll was discarded');
  }
}

export async function readWatched(db: Db): Promise<Map<string, Snapshot>> {
  const rows = await db.selectFrom('watched').selectAll().execute();
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        status: row.status,
        result: row.result,
        publishedAt: row.published_at,
        digest: row.digest,
        eventMs: row.event_ms === null ? null : Number(row.event_ms),
        display: JSON.parse(row.display) as Display,
        withdrawn: row.withdrawn === 1,
      },
    ]),
  );
}

export interface PollSummary {
  instance: string;
  now: number;
  window: { from: string; to: string };
  watched: number;
  requests: number;
  /** What the walk saw while the upstream moved, in words; absent or null when nothing did. */
  walk?: string | null;
  /** Every record's version as read, for the record history (absent: not kept). */
  versions?: readonly Version[];
  /** When the poll before this one completed: the versions then are what changed records are compared with. */
  previousMs?: number | null;
}

/** Applies a complete walk's plan, or nothing: the lease is checked (and held) first, inside the transaction. */
export async function applyPoll(db: Db, plan: Plan, summary: PollSummary): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const held = await takeFeed(trx, summary.instance, summary.now, {
      outcome: 'complete',
      error: null,
      complete_ms: summary.now,
      window_from: summary.window.from,
      window_to: summary.window.to,
      watched: summary.watched,
      requests: summary.requests,
      walk: summary.walk ?? null,
      polls: sql<number>`polls + 1`,
      polled_by: summary.instance,
    });
    if (!held) throw new LeaseLost();
    // Numbers never go back: the feed keeps the last one given (an instance of the release before 0021 does not).
    let seq = await lastEventSeq(trx);
    const detectedAt = new Date(summary.now).toISOString();
    const digests = new Map((summary.versions ?? []).map((version) => [version.id, version.digest]));
    const changed = plan.entries.filter((entry) =>
      entry.kinds.some((kind) => kind === 'status' || kind === 'result' || kind === 'updated'),
    );
    const before =
      summary.previousMs == null || changed.length === 0
        ? new Map<string, string | null>()
        : await versionsAsOf(
            trx,
            changed.map((entry) => entry.id),
            summary.previousMs,
          );
    for (const chunk of chunks(plan.entries, 400)) {
      await trx
        .insertInto('changes')
        .values(
          chunk.map((entry) => ({
            seq: (seq += 1),
            detected_at: detectedAt,
            pick_id: entry.id,
            kinds: entry.kinds.join(' '),
            sport: entry.display.sport ?? null,
            league: entry.display.league ?? null,
            display: JSON.stringify(entry.display),
            before: entry.before && JSON.stringify(entry.before),
            after: entry.after && JSON.stringify(entry.after),
            digest: entry.kinds.includes('withdrawn') ? null : (digests.get(entry.id) ?? null),
            prev_digest: before.get(entry.id) ?? null,
          })),
        )
        .execute();
    }
    if (plan.entries.length > 0) await trx.updateTable('change_feed').set({ last_seq: seq }).where('name', '=', 'feed').execute();
    for (const chunk of chunks(plan.upserts, 400)) {
      await trx
        .insertInto('watched')
        .values(
          chunk.map((s) => ({
            id: s.id,
            published_at: s.publishedAt,
            status: s.status,
            result: s.result,
            digest: s.digest,
            event_ms: s.eventMs,
            display: JSON.stringify(s.display),
            withdrawn: s.withdrawn ? 1 : 0,
          })),
        )
        .onConflict((oc) =>
          oc.column('id').doUpdateSet((eb) => ({
            published_at: eb.ref('excluded.published_at'),
            status: eb.ref('excluded.status'),
            result: eb.ref('excluded.result'),
            digest: eb.ref('excluded.digest'),
            event_ms: eb.ref('excluded.event_ms'),
            display: eb.ref('excluded.display'),
            withdrawn: eb.ref('excluded.withdrawn'),
          })),
        )
        .execute();
    }
    for (const chunk of chunks(plan.removals, 500)) await trx.deleteFrom('watched').where('id', 'in', chunk).execute();
    if (summary.versions) {
      await recordVersionsIn(trx, summary.versions, summary.now, 'poll');
      const withdrawn = plan.entries.filter((entry) => entry.kinds.includes('withdrawn')).map((entry) => entry.id);
      await recordWithdrawalsIn(trx, withdrawn, summary.now);
    }
    return plan.entries.length;
  });
}

function matching(db: Db, query: ChangeQuery): SelectQueryBuilder<Database, 'changes', Selectable<ChangesTable>> {
  let select = db.selectFrom('changes').selectAll();
  if (query.kind) select = select.where(sql<string>`' ' || kinds || ' '`, 'like', `% ${query.kind} %`);
  if (query.sport) select = select.where(sql<string>`lower(sport)`, '=', query.sport.toLowerCase());
  if (query.league) select = select.where(sql<string>`lower(league)`, '=', query.league.toLowerCase());
  if (query.since) select = select.where('detected_at', '>', query.since);
  if (query.until) select = select.where('detected_at', '<=', query.until);
  return select;
}

const parse = (text: string | null) => (text === null ? null : (JSON.parse(text) as Lifecycle));

function toChange(row: Selectable<ChangesTable>): StoredChange {
  return {
    seq: Number(row.seq),
    detectedAt: row.detected_at,
    id: row.pick_id,
    kinds: row.kinds.split(' ') as ChangeKind[],
    display: JSON.parse(row.display) as Display,
    before: parse(row.before),
    after: parse(row.after),
  };
}

/** Entries oldest first, a batch at a time (keyset): the download, never the whole feed in memory. */
export async function* readChanges(db: Db, query: ChangeQuery = {}, batch = 1_000): AsyncGenerator<StoredChange> {
  let after = 0;
  for (;;) {
    const rows = await matching(db, query).where('seq', '>', after).orderBy('seq').limit(batch).execute();
    for (const row of rows) yield toChange(row);
    if (rows.length < batch) return;
    after = Number(rows.at(-1)!.seq);
  }
}

/** The newest `limit` entries matching, newest first, older than `query.before` when paging (the page). */
export async function latestChanges(db: Db, query: ChangeQuery, limit: number): Promise<StoredChange[]> {
  let select = matching(db, query);
  if (query.before) select = select.where('seq', '<', query.before);
  return (await select.orderBy('seq', 'desc').limit(limit).execute()).map(toChange);
}

/** How many entries of each kind were detected after `since` (an entry with two kinds counts for both). */
export async function countChanges(db: Db, since: string | undefined): Promise<Record<ChangeKind, number> & { total: number }> {
  const rows = await matching(db, { since })
    .clearSelect()
    .select((eb) => ['kinds', eb.fn.countAll<number>().as('n')])
    .groupBy('kinds')
    .execute();
  const counts = { new: 0, status: 0, result: 0, updated: 0, withdrawn: 0, restored: 0, total: 0 };
  for (const row of rows) {
    for (const kind of row.kinds.split(' ') as ChangeKind[]) if (kind in counts) counts[kind] += Number(row.n);
    counts.total += Number(row.n);
  }
  return counts;
}

/** Drops entries detected before `before` (ISO); the store grows with changes, not with polls. */
export async function pruneChanges(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('changes').where('detected_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The sports, and the leagues under each, of the records the feed watches now (not withdrawn): what the feed has seen. */
export async function watchedScope(db: Db): Promise<Record<string, string[]>> {
  const rows = await db.selectFrom('watched').select('display').where('withdrawn', '=', 0).execute();
  const scope = new Map<string, Set<string>>();
  for (const row of rows) {
    const { sport, league } = JSON.parse(row.display) as Display;
    if (!sport) continue;
    if (!scope.has(sport)) scope.set(sport, new Set());
    if (league) scope.get(sport)!.add(league);
  }
  return Object.fromEntries([...scope].map(([sport, leagues]) => [sport, [...leagues].sort()]));
}
