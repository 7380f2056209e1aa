import 'server-only';
import { toAppError } from '../errors';
import { parseFilters, withoutPaging, type FilterKind } from '../filters';
import { picksApi } from '../picks-api';
import { claimWalkSlot } from '../walk-slots';

/**
 * GET /api/records/count?kind=picks|results&<filters>: how many records the filters match, for the pages'
 * "Count all" (the API states no total). A whole walk, so it takes a walk slot like an export; the page
 * asks for it only when a person does, and never waits for it.
 */
export async function countResponse(request: Request, user: string): Promise<Response> {
  try {
    const params = new URL(request.url).searchParams;
    const kind: FilterKind = params.get('kind') === 'results' ? 'results' : 'picks';
    params.delete('kind');
    const parsed = parseFilters(kind, params);
    if (!parsed.ok) throw parsed.error;
    const release = await claimWalkSlot(user);
    try {
      const api = picksApi();
      const filters = withoutPaging(parsed.filters);
      let records = 0;
      const walk =
        kind === 'picks' ? api.walkPicks(filters, { signal: request.signal }) : api.walkResults(filters, { signal: request.signal });
      for await (const _record of walk) records += 1;
      return Response.json({ kind, records, countedAt: new Date().toISOString() }, { headers: { 'Cache-Control': 'private, no-store' } });
    } finally {
      release();
    }
  } catch (error) {
    return toAppError(error).toResponse();
  }
}
