import 'server-only';
import { z } from 'zod';
import { AppError, invalidFields } from '../errors';
import { parseFilters, type FilterKind, type PickFilters } from '../picks-api/filters';
import { logoPolicy } from '../picks-api';
import { toPickRow, type PickRow } from '../picks-api/pick-view';
import { pickSchema } from '../picks-api/schemas';
import { processSlot } from '../process-state';
import { fromStore } from '../store';
import { readFeed } from '../store/change-feed';
import { foldWords, indexedBodies, indexSize } from '../store/record-index';
import { searchIndexed, SORTABLE, type Counted, type IndexQuery, type IndexWhere, type SortColumn } from '../store/record-search';
import type { Pick } from '../picks-api/schemas';
import type { LicenceSummary } from '../vocabulary/licence';
import { followContentMode, indexMark } from './index-keeper';
import { lastWholeWalk } from './index-walk';

/**
 * Search and whole-set sort over the portal's index of the licensed set (lib/store/record-index.ts): what the
 * upstream cannot answer — words anywhere in a record, any order of the whole filtered set, any page by number,
 * the total at once. Answered only within the licence in force now (its sports, leagues and window), with how
 * fresh the index is: the history write it follows, and the change feed's last complete poll.
 */

export const SORT_COLUMNS = Object.keys(SORTABLE) as SortColumn[];
const MAX_WORDS = 8;
const totals = () => processSlot<Map<string, Counted>>('searchTotals').once(() => new Map());
const MAX_PAGE = 200;

/** `?q=&sort=&dir=&page=` as search takes them: a problem in words for each one that is wrong. */
export const searchParamsSchema = z.strictObject({
  q: z.string().max(200, 'must be at most 200 characters').optional(),
  sort: z
    .enum(['relevance', ...SORT_COLUMNS] as [string, ...string[]], { error: `must be relevance or one of ${SORT_COLUMNS.join(', ')}` })
    .optional(),
  dir: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).optional(),
  page: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(1_000_000, 'is too far')
    .optional(),
});
export type SearchParams = z.infer<typeof searchParamsSchema>;

export interface SearchAnswer {
  rows: PickRow[];
  total: number;
  page: number;
  size: number;
  lastPage: number;
  sort: { by: SortColumn | 'relevance'; dir: 'asc' | 'desc' };
  words: string[];
  /** How fresh the index is: when it last followed the history, and the feed's last complete poll. */
  freshness: {
    indexedAt: string | null;
    lastPollAt: string | null;
    records: number;
    startedOverAt: string | null;
    walkedAt: string | null;
  };
}

/** The search's words, folded: at most MAX_WORDS, each kept once. */
export const searchWords = (q: string | undefined) =>
  [
    ...new Set(
      foldWords(q ?? '')
        .split(' ')
        .filter(Boolean),
    ),
  ].slice(0, MAX_WORDS);

/** Checks `?q=&sort=&dir=&page=`, naming every wrong one at once. */
export function parseSearch(params: URLSearchParams): SearchParams {
  const asked = Object.fromEntries(['q', 'sort', 'dir', 'page'].flatMap((key) => (params.get(key) ? [[key, params.get(key)!]] : [])));
  const parsed = searchParamsSchema.safeParse(asked);
  if (parsed.success) return parsed.data;
  const problems: Record<string, string> = {};
  for (const issue of parsed.error.issues) problems[String(issue.path[0] ?? 'search')] ??= issue.message;
  throw invalidFields('search', problems);
}

/** The filters and the search of one address, every wrong field of both named at once (INVALID_FILTERS). */
export function parseFiltersAndSearch(kind: FilterKind, params: URLSearchParams): { filters: PickFilters; search: SearchParams } {
  const parsed = parseFilters(kind, params);
  let search: SearchParams = {};
  let problem: AppError | null = null;
  try {
    search = parseSearch(params);
  } catch (error) {
    problem = error as AppError;
  }
  if (parsed.ok && !problem) return { filters: parsed.filters, search };
  throw new AppError({
    code: 'INVALID_FILTERS',
    message: [parsed.ok ? '' : parsed.error.message, problem?.message ?? ''].filter(Boolean).join(' '),
    details: { ...(parsed.ok ? {} : parsed.error.details), ...(problem?.details ?? {}) },
  });
}

/** The order a search is answered in: the one asked, else the best matches first with words, the latest events without. */
export function sortOf(search: SearchParams, words: readonly string[]): SearchAnswer['sort'] {
  const by = (search.sort as SortColumn | 'relevance' | undefined) ?? (words.length > 0 ? 'relevance' : 'eventDate');
  return { by, dir: search.dir ?? 'desc' };
}

/** A record as the index keeps its body; null when it no longer reads as a record. */
export function recordOfBody(body: string | undefined): Pick | null {
  const parsed = body ? pickSchema.safeParse(JSON.parse(body)) : null;
  return parsed?.success ? parsed.data : null;
}

// A body is named by its digest and never changes: each is read once while it is asked for often (a shared search).
const READ_KEPT = 5_000;
const readBodies = () => processSlot<Map<string, Pick | null>>('indexedRecords').once(() => new Map());

/** The records of these digests read already (taken at once: a later request may push them out meanwhile). */
function recordsRead(digests: readonly string[]): Map<string, Pick | null> {
  const kept = readBodies();
  return new Map(digests.flatMap((digest) => (kept.has(digest) ? [[digest, kept.get(digest)!] as const] : [])));
}

/** The record a body holds, read now and kept by its digest (a bounded number of them). */
function readAndKeep(digest: string, body: string | undefined): Pick | null {
  const record = recordOfBody(body);
  if (body === undefined) return record;
  const kept = readBodies();
  if (kept.size >= READ_KEPT) kept.delete(kept.keys().next().value!);
  kept.set(digest, record);
  return record;
}

type Db = Parameters<Parameters<typeof fromStore>[0]>[0];

/** The index as a request finds it: started over first if the licence's content mode changed, then its mark. */
export async function indexState(db: Db, allowed: Allowed) {
  const startedOverMs = allowed.contentMode === undefined ? null : await followContentMode(db, allowed.contentMode);
  return { startedOverMs, mark: await indexMark(db) };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const day = (text: string | undefined, end = false) => {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms + (end && /^\d{4}-\d{2}-\d{2}$/.test(text) ? 86_400_000 : 0) : undefined;
};

/** What the licence in force allows; `contentMode` (absent: no licence read) decides which bodies the index may hold. */
export type Allowed = IndexQuery['allowed'] & { contentMode?: string | null };

/** What the licence in force allows (null licence: nothing). */
export function allowedBy(licence: LicenceSummary | null): Allowed {
  return {
    ...(licence ? { contentMode: licence.contentMode } : {}),
    sports: licence ? licence.sports : [],
    leagues: licence ? licence.leagues : [],
    fromMs: licence ? (day(licence.from ?? undefined) ?? null) : null,
    toMs: licence ? (day(licence.to ?? undefined, true) ?? null) : null,
  };
}

/** What is allowed narrowed further to a token's scope (its sports, leagues and window). */
export function narrowedBy(
  allowed: Allowed,
  scope: { sports: string[]; leagues: string[]; from: string | null; to: string | null },
): Allowed {
  const within = (mine: string[] | null, theirs: string[]) =>
    theirs.length === 0 ? mine : mine === null ? theirs : mine.filter((value) => theirs.includes(value));
  const from = scope.from ? Date.parse(scope.from) : null;
  const to = scope.to ? Date.parse(scope.to) : null;
  return {
    ...allowed,
    sports: within(allowed.sports, scope.sports),
    leagues: within(allowed.leagues, scope.leagues),
    fromMs: from === null ? allowed.fromMs : Math.max(from, allowed.fromMs ?? from),
    toMs: to === null ? allowed.toMs : Math.min(to, allowed.toMs ?? to),
  };
}

/** What the filters, the words and the licence select from the index (the question without its order and page). */
export function whereOf(kind: FilterKind, filters: PickFilters, words: string[], allowed: Allowed): IndexWhere {
  return {
    words,
    sport: filters.sport,
    league: filters.league,
    status: kind === 'picks' ? (filters as { status?: string }).status : undefined,
    result: filters.result,
    settledOnly: kind === 'results',
    fromMs: day(filters.from),
    toMs: day(filters.to, true),
    allowed,
  };
}

/** One page of the whole filtered set from the index, as the records pages show it; null licence: nothing. */
export async function searchRecords(
  kind: FilterKind,
  filters: PickFilters,
  search: SearchParams,
  licence: LicenceSummary | null,
): Promise<SearchAnswer> {
  const { records, ...rest } = await findInIndex(kind, filters, search, allowedBy(licence));
  const logos = logoPolicy();
  return { ...rest, rows: records.map((record) => toPickRow(record, logos)) };
}

/** The key of a question's counts: the index's write and start, the column ordered by (its valued records), the rest. */
const countKey = (write: number, startedOverMs: number | null, by: string, where: IndexWhere) =>
  `${write}\0${startedOverMs}\0${by}\0${JSON.stringify(where)}`;

/** How many records of the index the filters select within `allowed`, and how many it holds: no record read. */
export async function countInIndex(kind: FilterKind, filters: PickFilters, allowed: Allowed): Promise<{ total: number; records: number }> {
  return fromStore(async (db) => {
    const { startedOverMs, mark } = await indexState(db, allowed);
    const where = whereOf(kind, filters, [], allowed);
    const key = countKey(mark.write, startedOverMs, 'eventDate', where);
    const counts = totals();
    const sort = { by: 'eventDate', dir: 'desc' } as const;
    const found = await searchIndexed(db, { ...where, sort, offset: 0, limit: 0 }, counts.get(key));
    counts.set(key, { total: found.total, valued: found.valued });
    return { total: found.total, records: await sizeOf(db, mark.write, startedOverMs) };
  });
}

/** How many records the index holds, counted once per index write. */
async function sizeOf(db: Db, write: number, startedOverMs: number | null): Promise<number> {
  const key = `${write}\0${startedOverMs}\0size`;
  const counts = totals();
  const records = counts.get(key)?.total ?? (await indexSize(db));
  counts.set(key, { total: records, valued: 0 });
  return records;
}

/** One page of the whole filtered set from the index, in the order asked, within `allowed`: the records as kept. */
export async function findInIndex(
  kind: FilterKind,
  filters: PickFilters,
  search: SearchParams,
  allowed: Allowed,
): Promise<Omit<SearchAnswer, 'rows'> & { records: Pick[] }> {
  const words = searchWords(search.q);
  const size = Math.min(filters.limit ?? 50, MAX_PAGE);
  const page = search.page ?? 1;
  const sort = sortOf(search, words);
  const { hits, total, read, bodies, mark, feed, indexed, startedOverMs, walkedMs } = await fromStore(async (db) => {
    const { startedOverMs, mark } = await indexState(db, allowed);
    const question = { ...whereOf(kind, filters, words, allowed), sort, offset: (page - 1) * size, limit: size };
    // How many match changes only when the index moves: counted once per question and index write.
    const { sort: _sort, offset: _offset, limit: _limit, ...where } = question;
    const key = countKey(mark.write, startedOverMs, sort.by, where);
    const counts = totals();
    const found = await searchIndexed(db, question, counts.get(key));
    if (counts.size >= 1_000) counts.clear();
    counts.set(key, { total: found.total, valued: found.valued });
    const read = recordsRead(found.hits.map((hit) => hit.digest));
    const [bodies, feed, indexed, walkedMs] = await Promise.all([
      // Only the bodies not read already.
      indexedBodies(
        db,
        found.hits.map((hit) => hit.digest).filter((digest) => !read.has(digest)),
      ),
      readFeed(db),
      sizeOf(db, mark.write, startedOverMs),
      lastWholeWalk(db),
    ]);
    return { ...found, read, bodies, mark, feed, indexed, startedOverMs, walkedMs };
  });
  const records = hits.flatMap((hit): Pick[] => {
    const record = read.has(hit.digest) ? read.get(hit.digest)! : readAndKeep(hit.digest, bodies.get(hit.digest));
    return record ? [record] : [];
  });
  return {
    records,
    total,
    page,
    size,
    lastPage: Math.max(1, Math.ceil(total / size)),
    sort,
    words,
    freshness: {
      indexedAt: iso(mark.atMs),
      lastPollAt: iso(feed.completeMs),
      records: indexed,
      startedOverAt: iso(startedOverMs),
      walkedAt: iso(walkedMs),
    },
  };
}
