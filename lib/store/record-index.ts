import { sql, SqliteAdapter, type Kysely } from 'kysely';
import { chunks } from './history';
import type { Database } from './schema';

/**
 * The partner's own index of the licensed set (0027): each record's newest version the portal saw, one row a
 * record, kept in step with the record history by lib/records/index-keeper.ts. Search finds records by their
 * words folded (case and accents) and by parts of words: FTS5's trigrams on the embedded database, pg_trgm on
 * PostgreSQL; the whole set sorts by any of its columns and pages by number. The licence in force is applied by
 * the caller (`allowed`), so what left the licence is never answered, whatever the index still holds.
 */

type Db = Kysely<Database>;

export interface IndexedRecord {
  pickId: string;
  digest: string;
  sport: string | null;
  league: string | null;
  status: string | null;
  result: string | null;
  eventMs: number | null;
  publishedMs: number | null;
  settledMs: number | null;
  odds: number | null;
  probability: number | null;
  words: string;
}

/** Words as search compares them: accents and case folded, anything but letters and digits a space. */
export function foldWords(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const str = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : null);
const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const ms = (value: unknown) => {
  const parsed = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(parsed) ? parsed : null;
};

/** A record's row of the index, from the body the history keeps (canonical JSON). */
export function indexedOf(pickId: string, digest: string, body: string): IndexedRecord {
  const record = JSON.parse(body) as Record<string, unknown>;
  const meta = (record.eventMetadata ?? {}) as Record<string, unknown>;
  const words = [
    record.sport,
    record.league,
    meta.competition,
    meta.stage,
    record.roundOrWeek,
    record.eventDescription,
    record.homeTeam,
    record.awayTeam,
    record.marketType,
    record.selection,
    record.bookmaker,
  ]
    .map(str)
    .filter((part): part is string => part !== null);
  return {
    pickId,
    digest,
    sport: str(record.sport),
    league: str(record.league),
    status: str(record.status),
    result: str(record.result),
    eventMs: ms(record.eventDate),
    publishedMs: ms(record.publishedAt),
    settledMs: ms(record.settledAt),
    odds: num(record.odds),
    probability: num(record.probability),
    words: foldWords(words.join(' ')),
  };
}

export const isSqlite = (db: Db) => db.getExecutor().adapter instanceof SqliteAdapter;

/** Puts records' newest versions in the index (replacing what it held of them). */
export async function putIndexed(db: Db, rows: readonly IndexedRecord[]): Promise<void> {
  for (const part of chunks(rows, 200)) {
    const values = part.map((r) => ({
      pick_id: r.pickId,
      digest: r.digest,
      sport: r.sport,
      league: r.league,
      status: r.status,
      result: r.result,
      event_ms: r.eventMs,
      published_ms: r.publishedMs,
      settled_ms: r.settledMs,
      odds: r.odds,
      probability: r.probability,
      words: r.words,
    }));
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('record_index')
        .values(values)
        .onConflict((oc) =>
          oc.column('pick_id').doUpdateSet((eb) => ({
            digest: eb.ref('excluded.digest'),
            sport: eb.ref('excluded.sport'),
            league: eb.ref('excluded.league'),
            status: eb.ref('excluded.status'),
            result: eb.ref('excluded.result'),
            event_ms: eb.ref('excluded.event_ms'),
            published_ms: eb.ref('excluded.published_ms'),
            settled_ms: eb.ref('excluded.settled_ms'),
            odds: eb.ref('excluded.odds'),
            probability: eb.ref('excluded.probability'),
            words: eb.ref('excluded.words'),
          })),
        )
        .execute();
      if (isSqlite(trx)) {
        // The FTS row is the index row's rowid (kept by an upsert): replaced with the row's words.
        const ids = await rowidsOf(
          trx,
          part.map((r) => r.pickId),
        );
        await sql`delete from record_words where rowid in (${sql.join([...ids.values()])})`.execute(trx);
        for (const r of part) await sql`insert into record_words (rowid, words) values (${ids.get(r.pickId)!}, ${r.words})`.execute(trx);
      }
    });
  }
}

/** The index rows' rowids on the embedded database (their FTS rows'). */
async function rowidsOf(db: Db, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{
    id: number;
    pick_id: string;
  }>`select rowid as id, pick_id from record_index where pick_id in (${sql.join(ids)})`.execute(db);
  return new Map(rows.rows.map((row) => [row.pick_id, Number(row.id)]));
}

/** Takes records out of the index (withdrawn, or no longer licensed). */
export async function dropIndexed(db: Db, ids: readonly string[]): Promise<void> {
  for (const part of chunks(ids, 400)) {
    if (isSqlite(db)) {
      const rowids = [...(await rowidsOf(db, part)).values()];
      if (rowids.length > 0) await sql`delete from record_words where rowid in (${sql.join(rowids)})`.execute(db);
    }
    await db.deleteFrom('record_index').where('pick_id', 'in', part).execute();
  }
}

/** Empties the index (a rebuild). */
export async function clearIndex(db: Db): Promise<void> {
  await db.deleteFrom('record_index').execute();
  if (isSqlite(db)) await sql`delete from record_words`.execute(db);
}

/** How many records the index holds. */
export async function indexSize(db: Db): Promise<number> {
  const row = await db
    .selectFrom('record_index')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The bodies of the versions found, by digest. */
export async function indexedBodies(db: Db, digests: readonly string[]): Promise<Map<string, string>> {
  if (digests.length === 0) return new Map();
  const rows = await db
    .selectFrom('record_bodies')
    .select(['digest', 'body'])
    .where('digest', 'in', [...new Set(digests)])
    .execute();
  return new Map(rows.map((row) => [row.digest, row.body]));
}
