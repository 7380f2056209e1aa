import 'server-only';
import { linkedController } from '../abort';
import { toAppError } from '../errors';
import { toSafeJson } from '../safe-json';
import { csvTable } from '../export/csv';
import { claimWalkSlot } from '../walk-slots';
import { parseCoverageQuery, runCoverage, type CoverageQuery } from '../coverage/run';
import { MATRIX_COLUMNS, matrixRows } from '../coverage/matrix';

/**
 * GET /api/coverage: NDJSON, one line per upstream page ({"type":"progress"}), then exactly one
 * {"type":"result"} or {"type":"error"}. A failed walk never sends figures. `format=csv` answers the
 * scope-against-delivery matrix as a CSV file instead.
 */
export async function coverageResponse(request: Request, user: string): Promise<Response> {
  const url = new URL(request.url);
  let query: CoverageQuery;
  let release: () => void;
  try {
    query = parseCoverageQuery(url.searchParams);
    release = await claimWalkSlot(user);
  } catch (error) {
    return toAppError(error).toResponse();
  }
  if (url.searchParams.get('format') === 'csv') return matrixCsv(query, request.signal).finally(release);

  const encode = (event: unknown) => Buffer.from(`${toSafeJson(event)}\n`, 'utf8');
  const { controller: abort } = linkedController(request.signal);
  const stream = new ReadableStream<Uint8Array>({
    start(output) {
      runCoverage(query, { signal: abort.signal, onProgress: (progress) => output.enqueue(encode({ type: 'progress', ...progress })) })
        .then((outcome) => output.enqueue(encode({ type: 'result', query, ...outcome })))
        .catch((error: unknown) => {
          if (abort.signal.aborted) return;
          const failure = toAppError(error);
          if (failure.code === 'INTERNAL') console.error('[portal] coverage failed:', error);
          output.enqueue(encode({ type: 'error', error: failure.toJSON() }));
        })
        .finally(() => {
          release();
          try {
            output.close();
          } catch {
            // already cancelled by the reader
          }
        });
    },
    cancel() {
      abort.abort();
      release();
    },
  });
  return new Response(stream, {
    headers: { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'private, no-store, no-transform' },
  });
}

async function matrixCsv(query: CoverageQuery, signal: AbortSignal): Promise<Response> {
  try {
    const { report } = await runCoverage(query, { signal });
    const scope = [query.sport, query.league]
      .filter(Boolean)
      .join('-')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .toLowerCase();
    return new Response(csvTable(MATRIX_COLUMNS, matrixRows(report)), {
      headers: {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="coverage-${scope ? `${scope}-` : ''}${query.fromDay}-to-${query.toDay}.csv"`,
        'Cache-Control': 'private, no-store',
      },
    });
  } catch (error) {
    return toAppError(error).toResponse();
  }
}
