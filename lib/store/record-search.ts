import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { isSqlite } from './record-index';
import type { Database } from './schema';

/**
 * Questions to the index of the licensed set (./record-index.ts keeps it): the records matching words and filters
 * within what the licence allows, a page of them in the order asked, how many match, and how many of them each
 * value of a column holds (facets).
 */

type Db = Kysely<Database>;

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

/** What a question selects, without its order and page. */
export type IndexWhere = Omit<IndexQuery, 'sort' | 'offset' | 'limit'>;

/** The columns the records pages filter by, whose values facets count. */
export const FACETS = ['sport', 'league', 'status', 'result'] as const;
export type Facet = (typeof FACETS)[number];

export interface IndexHit {
  pickId: string;
  digest: string;
}

function matching(db: Db, query: IndexWhere) {
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

/**
 * How many of the records selected hold each value of a column, the question's own choice of that column set aside
 * (so the other choices show what they would hold), the most held first: the records pages' facets.
 */
export async function facetCounts(db: Db, where: IndexWhere, facet: Facet, limit: number): Promise<{ value: string; count: number }[]> {
  const column = sql.ref(`i.${facet}`);
  const rows = await matching(db, { ...where, [facet]: undefined })
    .where(`i.${facet}`, 'is not', null)
    .select([sql<string>`${column}`.as('value'), sql<number | string>`count(*)`.as('n')])
    .groupBy(`i.${facet}`)
    .orderBy(sql`count(*)`, 'desc')
    .orderBy(`i.${facet}`)
    .limit(limit)
    .execute();
  return rows.map((row) => ({ value: row.value, count: Number(row.n) }));
}
