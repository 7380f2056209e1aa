import { sql, SqliteAdapter, type Kysely, type SqlBool, type Expression } from 'kysely';
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

const isSqlite = (db: Db) => db.getExecutor().adapter instanceof SqliteAdapter;

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

export const SORTABLE = {
  eventDate: 'event_ms',
  published: 'published_ms',
  settled: 'settled_ms',
  odds: 'odds',
  probability: 'probability',
  status: 'status',
  result: 'result',
  sport: 'sport',
  league: 'league',
} as const;
export type SortColumn = keyof typeof SORTABLE;

export interface IndexQuery {
  /** Folded search words (every one must match, as a word or part of one); none: every record. */
  words: string[];
  sport?: string;
  league?: string;
  status?: string;
  result?: string;
  /** Only settled records (the results page). */
  settledOnly?: boolean;
  fromMs?: number;
  toMs?: number;
  /** The licence in force: only these sports and leagues (null: any), only events inside its window. */
  allowed: { sports: string[] | null; leagues: string[] | null; fromMs: number | null; toMs: number | null };
  /** Relevance (when there are words) or a column, both directions; ties broken by id. */
  sort: { by: SortColumn | 'relevance'; dir: 'asc' | 'desc' };
  offset: number;
  limit: number;
}

export interface IndexHit {
  pickId: string;
  digest: string;
}

function matching(db: Db, query: IndexQuery) {
  const sqlite = isSqlite(db);
  const long = query.words.filter((w) => [...w].length >= 3);
  let select = db.selectFrom('record_index as i');
  if (sqlite && long.length > 0) {
    const match = long.map((w) => `"${w}"`).join(' ');
    select = select.innerJoin(
      sql<{
        r: number;
        rank: number;
      }>`(select rowid as r, bm25(record_words) as rank from record_words where record_words match ${match})`.as('w'),
      (join) => join.on(sql<SqlBool>`w.r = i.rowid`),
    ) as unknown as typeof select;
  }
  return select.where((eb) => {
    const all: Expression<SqlBool>[] = [];
    // Short words (fewer than three letters, below a trigram) and every word on PostgreSQL: a part of the words.
    for (const word of sqlite ? query.words.filter((w) => !long.includes(w)) : query.words)
      all.push(eb('i.words', 'like', `%${word.replace(/[%_\\]/g, '')}%`));
    if (query.sport) all.push(eb('i.sport', '=', query.sport));
    if (query.league) all.push(eb('i.league', '=', query.league));
    if (query.status) all.push(eb('i.status', '=', query.status));
    if (query.result) all.push(eb('i.result', '=', query.result));
    if (query.settledOnly) all.push(eb('i.result', 'is not', null));
    if (query.fromMs !== undefined) all.push(eb('i.event_ms', '>=', query.fromMs));
    if (query.toMs !== undefined) all.push(eb('i.event_ms', '<', query.toMs));
    const { allowed } = query;
    if (allowed.sports) all.push(allowed.sports.length ? eb('i.sport', 'in', allowed.sports) : sql<SqlBool>`1 = 0`);
    if (allowed.leagues) all.push(allowed.leagues.length ? eb('i.league', 'in', allowed.leagues) : sql<SqlBool>`1 = 0`);
    if (allowed.fromMs !== null) all.push(eb('i.event_ms', '>=', allowed.fromMs));
    if (allowed.toMs !== null) all.push(eb('i.event_ms', '<', allowed.toMs));
    return eb.and(all);
  });
}

/** How many match: in all, and with a value in the column ordered by (those without come last). */
export interface Counted {
  total: number;
  valued: number;
}

const countOf = async (select: ReturnType<typeof matching>) =>
  Number((await select.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst())?.n ?? 0);

/**
 * One page of the records matching, in the order asked, and how many match (`known`: the same question's counts
 * since the index last moved). Ordered by a column, the records with a value come first in the column's index
 * order, then those without by id; a page past the middle is read from the other end in the reverse order, so the
 * last page costs what the first does. Ordered by relevance, the engine ranks the matches.
 */
export async function searchIndexed(db: Db, query: IndexQuery, known?: Counted): Promise<{ hits: IndexHit[] } & Counted> {
  const base = matching(db, query);
  const { by, dir } = query.sort;
  const ranked = by === 'relevance' && query.words.length > 0;
  const column = ranked ? null : (`i.${SORTABLE[by === 'relevance' ? 'eventDate' : by]}` as const);
  const direction = by === 'relevance' ? 'desc' : dir;
  const counted: Counted = known ?? {
    total: await countOf(base),
    valued: column ? await countOf(base.where(column, 'is not', null)) : 0,
  };
  const hit = (row: { pick_id: string; digest: string }) => ({ pickId: row.pick_id, digest: row.digest });
  if (!column) return { hits: (await ranking(db, base, query).offset(query.offset).limit(query.limit).execute()).map(hit), ...counted };
  const { total, valued } = counted;
  const start = Math.min(query.offset, total);
  const end = Math.min(query.offset + query.limit, total);
  const flip = (d: 'asc' | 'desc') => (d === 'asc' ? 'desc' : 'asc');
  const rows: { pick_id: string; digest: string }[] = [];
  if (start < valued) {
    const to = Math.min(end, valued);
    const fromEnd = start > valued - to; // nearer the end of the valued records than their start
    const d = fromEnd ? flip(direction) : direction;
    const part = await base
      .where(column, 'is not', null)
      .select(['i.pick_id', 'i.digest'])
      .orderBy(column, d)
      .orderBy('i.pick_id', d)
      .offset(fromEnd ? valued - to : start)
      .limit(to - start)
      .execute();
    rows.push(...(fromEnd ? part.reverse() : part));
  }
  if (end > valued) {
    const from = Math.max(0, start - valued);
    const part = await base
      .where(column, 'is', null)
      .select(['i.pick_id', 'i.digest'])
      .orderBy('i.pick_id', direction)
      .offset(from)
      .limit(end - valued - from)
      .execute();
    rows.push(...part);
  }
  return { hits: rows.map(hit), ...counted };
}

/** The matches in the engine's order of relevance: FTS5's bm25, or on PostgreSQL the words found together first. */
function ranking(db: Db, base: ReturnType<typeof matching>, query: IndexQuery) {
  const phrase = `%${query.words.join(' ').replace(/[%_\\]/g, '')}%`;
  let select = base.select(['i.pick_id', 'i.digest']);
  if (isSqlite(db)) {
    if (query.words.some((w) => [...w].length >= 3)) select = select.orderBy(sql`w.rank`, 'asc');
  } else select = select.orderBy(sql`case when i.words like ${phrase} then 0 else 1 end`, 'asc');
  return select.orderBy('i.event_ms', 'desc').orderBy('i.pick_id', 'asc');
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
