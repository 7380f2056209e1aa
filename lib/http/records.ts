import 'server-only';
import { AppError, toAppError } from '../errors';
import { parseFilters, type FilterKind } from '../picks-api/filters';
import { claimWalkSlot } from '../walk-slots';
import { countRecords, summariseRecords } from '../records/summarise';
import { licenceOrNull } from '../picks-api/portal';
import { parseFiltersAndSearch, searchRecords } from '../records/search';
import type { z } from 'zod';
import type { recordsCountSchema, searchAnswerSchema, summaryAnswerSchema } from '../records/answers';

/**
 * GET /api/records/count?kind=picks|results&<filters>: how many records the filters match (the API states
 * no total), which the records pages ask for in the background once loaded and never wait for. A whole
 * walk, shared for a minute by everyone on the same filters (./summarise.ts); a person waits for it in a
 * walk slot, like an export.
 */
export async function countResponse(request: Request, user: string): Promise<Response> {
  try {
    const params = new URL(request.url).searchParams;
    const kind = kindOf(params);
    const parsed = parseFilters(kind, params);
    if (!parsed.ok) throw parsed.error;
    const release = await claimWalkSlot(user);
    try {
      const { records, countedAt } = await countRecords(kind, parsed.filters);
      const answer: z.infer<typeof recordsCountSchema> = { kind, records, countedAt };
      return Response.json(answer, { headers: { 'Cache-Control': 'private, no-store' } });
    } finally {
      release();
    }
  } catch (error) {
    return toAppError(error).toResponse();
  }
}

/**
 * GET /api/records/summary?kind=picks|results&<filters>: what the filtered set adds up to (lib/records/summary.ts),
 * for the /results summary and the overview's tiles, which ask for it after the page has loaded.
 */
export async function summaryResponse(request: Request): Promise<Response> {
  try {
    const params = new URL(request.url).searchParams;
    const kind = kindOf(params);
    const parsed = parseFilters(kind, params);
    if (!parsed.ok) throw parsed.error;
    const summary = await summariseRecords(kind, parsed.filters);
    const answer: z.infer<typeof summaryAnswerSchema> = { kind, ...summary };
    return Response.json(answer, { headers: { 'Cache-Control': 'private, no-store' } });
  } catch (error) {
    return toAppError(error).toResponse();
  }
}

/** ?kind=picks|results (picks when absent), taken out of the filters. */
function kindOf(params: URLSearchParams): FilterKind {
  const kind = params.get('kind') ?? 'picks';
  params.delete('kind');
  if (kind !== 'picks' && kind !== 'results') {
    throw new AppError({ code: 'INVALID_FILTERS', message: `kind must be picks or results, not "${kind.slice(0, 40)}".` });
  }
  return kind;
}

/**
 * GET /api/records/search?kind=picks|results&q=&sort=&dir=&page=&<filters>: a page of the whole filtered set from the
 * portal's index of the licensed set — words anywhere, any order, any page — within the licence in force.
 */
export async function searchResponse(request: Request): Promise<Response> {
  try {
    const params = new URL(request.url).searchParams;
    const kind = kindOf(params);
    // Every wrong field at once: the filters' and the search's.
    const { filters, search } = parseFiltersAndSearch(kind, params);
    const found = await searchRecords(kind, filters, search, await licenceOrNull());
    const { rows, ...rest } = found;
    const answer: z.infer<typeof searchAnswerSchema> = { kind, data: rows as unknown as Record<string, unknown>[], ...rest };
    return Response.json(answer, { headers: { 'Cache-Control': 'private, no-store' } });
  } catch (error) {
    return toAppError(error).toResponse();
  }
}
