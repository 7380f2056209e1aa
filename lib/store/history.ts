import type { Kysely } from 'kysely';
import type { Observer, Version } from '../vocabulary/version';
import type { Database } from './schema';

/**
 * Record history (lib/history): every distinct content of a record once (`record_bodies`), the order in which
 * a record's versions were seen (`record_versions`), and each record's newest version with its latest
 * sighting (`record_heads`). Writers of every instance take the `history` lock, so a record's versions are
 * numbered once; a sighting that is older than what is known of a record (a slow export) adds no version.
 */

type Db = Kysely<Database>;
const CHUNK = 400;

export function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** What was written: versions new to their record, and bodies new to the store. */
export interface Recorded {
  versions: number;
  bodies: number;
}

/**
 * Takes the `history` lock and answers this write's number: the lock's count, moved under the lock, so numbers
 * follow the order writes commit in on both engines (every writer holds the lock to its commit).
 */
export async function historyWrite(trx: Db): Promise<number> {
  const row = await trx
    .updateTable('locks')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('name', '=', 'history')
    .returning('version')
    .executeTakeFirstOrThrow();
  return Number(row.version);
}

/** Records sightings of versions at `at`, inside a transaction of the caller that holds (or here takes) the lock. */
export async function recordVersionsIn(trx: Db, versions: readonly Version[], at: number, by: Observer): Promise<Recorded> {
  const written = await historyWrite(trx);
  const recorded: Recorded = { versions: 0, bodies: 0 };
  // One sighting per record: the last one given (a walk that moved may have read a record twice).
  const latest = new Map<string, Version>();
  for (const version of versions) latest.set(version.id, version);
  for (const chunk of chunks([...latest.values()])) {
    const heads = new Map(
      (
        await trx
          .selectFrom('record_heads')
          .selectAll()
          .where(
            'pick_id',
            'in',
            chunk.map((v) => v.id),
          )
          .execute()
      ).map((row) => [row.pick_id, row]),
    );
    const seen: string[] = [];
    const opened: Opening[] = [];
    const bodies = new Map<string, Version>();
    for (const version of chunk) {
      const head = heads.get(version.id);
      if (head && head.digest === version.digest) {
        // Seen again: its body is kept already (the head's version is one of the record's versions).
        seen.push(version.id);
        continue;
      }
      bodies.set(version.digest, version);
      // Older than the newest sighting of another version: history already knows better (its body is kept all the same).
      if (head && Number(head.last_ms) > at) continue;
      opened.push({ pickId: version.id, head, digest: version.digest });
    }
    await openVersions(trx, opened, at, by, written);
    recorded.versions += opened.length;
    if (seen.length > 0)
      await trx
        .updateTable('record_heads')
        .set({ last_ms: at, last_by: by })
        .where('pick_id', 'in', seen)
        .where('last_ms', '<=', at)
        .execute();
    recorded.bodies += await storeBodies(trx, [...bodies.values()], at);
  }
  return recorded;
}

/** Sightings of versions, in a transaction of their own. */
export function recordVersions(db: Db, versions: readonly Version[], at: number, by: Observer): Promise<Recorded> {
  return db.transaction().execute((trx) => recordVersionsIn(trx, versions, at, by));
}

/** Records withdrawn by a complete poll (the poller's transaction, which holds the lock). */
export async function recordWithdrawalsIn(trx: Db, ids: readonly string[], at: number): Promise<number> {
  if (ids.length === 0) return 0;
  const written = await historyWrite(trx);
  let withdrawn = 0;
  for (const chunk of chunks(ids)) {
    const heads = await trx.selectFrom('record_heads').selectAll().where('pick_id', 'in', chunk).execute();
    const opened = heads.filter((head) => head.digest !== null).map((head) => ({ pickId: head.pick_id, head, digest: null }));
    await openVersions(trx, opened, at, 'poll', written);
    withdrawn += opened.length;
  }
  return withdrawn;
}

type Head = Database['record_heads'];

interface Opening {
  pickId: string;
  head: Head | undefined;
  /** null: withdrawn. */
  digest: string | null;
}

/**
 * New newest versions of records (each record once), a chunk's in a few statements whatever its size: the
 * version each replaces gets its last sighting from its head; the new ones and their heads are written in one
 * statement each.
 */
async function openVersions(trx: Db, opened: readonly Opening[], at: number, by: Observer, written: number): Promise<void> {
  if (opened.length === 0) return;
  for (const { pickId, head } of opened)
    if (head)
      await trx
        .updateTable('record_versions')
        .set({ last_ms: head.last_ms, last_by: head.last_by })
        .where('pick_id', '=', pickId)
        .where('seq', '=', head.seq)
        .execute();
  const rows = opened.map(({ pickId, head, digest }) => ({ pickId, digest, seq: (head ? Number(head.seq) : 0) + 1 }));
  await trx
    .insertInto('record_versions')
    .values(rows.map(({ pickId, digest, seq }) => ({ pick_id: pickId, seq, digest, first_ms: at, first_by: by, last_ms: at, last_by: by })))
    .execute();
  await trx
    .insertInto('record_heads')
    .values(
      rows.map(({ pickId, digest, seq }) => ({
        pick_id: pickId,
        seq,
        digest,
        last_ms: at,
        last_by: by,
        first_ms: at,
        first_seq: seq,
        written,
      })),
    )
    .onConflict((oc) =>
      oc.column('pick_id').doUpdateSet((eb) => ({
        seq: eb.ref('excluded.seq'),
        digest: eb.ref('excluded.digest'),
        last_ms: eb.ref('excluded.last_ms'),
        last_by: eb.ref('excluded.last_by'),
        first_ms: eb.ref('excluded.first_ms'),
        first_seq: eb.ref('excluded.first_seq'),
        written: eb.ref('excluded.written'),
      })),
    )
    .execute();
}

/** Bodies not stored yet: each content once. */
async function storeBodies(trx: Db, versions: readonly Version[], at: number): Promise<number> {
  if (versions.length === 0) return 0;
  const known = new Set(
    (
      await trx
        .selectFrom('record_bodies')
        .select('digest')
        .where(
          'digest',
          'in',
          versions.map((v) => v.digest),
        )
        .execute()
    ).map((row) => row.digest),
  );
  const fresh = versions.filter((v) => !known.has(v.digest));
  if (fresh.length === 0) return 0;
  await trx
    .insertInto('record_bodies')
    .values(
      fresh.map((v) => ({
        digest: v.digest,
        pick_id: v.id,
        sport: v.sport,
        league: v.league,
        status: v.status,
        result: v.result,
        event_ms: v.eventMs,
        body: v.body,
        first_ms: at,
      })),
    )
    .onConflict((oc) => oc.column('digest').doNothing())
    .execute();
  return fresh.length;
}

/** Each record's version as it was known at `ms` (its digest; null: seen withdrawn), for those that had one. */
export async function versionsAsOf(db: Db, ids: readonly string[], ms: number): Promise<Map<string, string | null>> {
  const known = new Map<string, string | null>();
  for (const chunk of chunks(ids)) {
    const rows = await db
      .selectFrom('record_versions as v')
      .select(['v.pick_id', 'v.digest'])
      .where('v.pick_id', 'in', chunk)
      .where('v.first_ms', '<=', ms)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('record_versions as w')
              .select('w.seq')
              .whereRef('w.pick_id', '=', 'v.pick_id')
              .whereRef('w.seq', '>', 'v.seq')
              .where('w.first_ms', '<=', ms),
          ),
        ),
      )
      .execute();
    for (const row of rows) known.set(row.pick_id, row.digest);
  }
  return known;
}
