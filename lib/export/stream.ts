import 'server-only';
import { linkedController } from '../abort';
import { AppError, toAppError } from '../errors';
import { wholeSetFilterValues, withoutPaging, type FilterKind, type PickFilters, type SearchParamsInput } from '../picks-api/filters';
import { encodingOf, picksApi, walkSummary, type PicksClient, type PickList, type WalkReport } from '../picks-api';
import { contentTypeOf, fileLabel, fileStamp } from './file-headers';
import { RECORD_FORMATS, type RecordFormat } from '../vocabulary/formats';
import { formatWriter } from './formats';
import { parseFiltersAndSearch, type SearchParams } from '../records/search';
import { toSearchParams } from '../paging';

/**
 * The whole filtered record set as a streamed file. The only code that writes exports: the route
 * handlers and `npm run export` both call it. Memory stays constant whatever the size: one page is
 * written while the walk prefetches the next, and the next is only asked for when the reader pulls
 * (backpressure). If the upstream fails mid-way (after the client's retries) the stream errors, so the
 * download fails visibly instead of ending like a complete file.
 */

export type ExportFormat = RecordFormat;

export interface ExportPlan {
  kind: FilterKind;
  format: ExportFormat;
  bom: boolean;
  filters: Omit<PickFilters, 'limit' | 'cursor'>;
  sent: Record<string, string>;
  /** A search or an order of the whole set (`q`, `sort`, `dir`): the file is the set the indexed pages show. */
  search: SearchParams | null;
}

/** Reads and checks an export request; throws a 400 AppError before anything is fetched or written. */
export function planExport(kind: FilterKind, params: SearchParamsInput, format: string | null, bom: string | null): ExportPlan {
  if (!(RECORD_FORMATS as readonly (string | null)[]).includes(format)) {
    throw new AppError({
      code: 'INVALID_FORMAT',
      message: 'format must be csv, json, jsonl or parquet.',
      details: { format: format ?? '(missing)' },
    });
  }
  // Every wrong filter and search field at once.
  const { filters, search: asked } = parseFiltersAndSearch(kind, params instanceof URLSearchParams ? params : toSearchParams(params));
  const q = asked.q?.trim() || undefined;
  const search: SearchParams | null = q || asked.sort ? { q, sort: asked.sort, dir: asked.dir } : null;
  return {
    kind,
    format: format as ExportFormat,
    // A byte-order mark is for spreadsheets reading CSV; a JSON Lines reader takes each line as a record.
    bom: format === 'csv' && (bom === '1' || bom === 'true'),
    filters: withoutPaging(filters),
    sent: {
      ...wholeSetFilterValues(kind, params),
      ...(search
        ? Object.fromEntries(Object.entries(search).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
        : {}),
    },
    search,
  };
}

export interface StartedExport {
  stream: ReadableStream<Uint8Array>;
  filename: string;
  contentType: string;
}

/**
 * Fetches the first page before returning, so an upstream refusal (403, 401, throttling) is an ordinary
 * error response rather than a broken download; after that the stream carries the rest.
 */
export async function startExport(
  plan: ExportPlan,
  options: {
    signal?: AbortSignal;
    client?: PicksClient;
    onPage?: (records: number, requestId: string | null) => void;
    /** Each page's records as they are written, in the page's encoding (a proof checks them: lib/proof). */
    onRecords?: (records: readonly unknown[], encoding: 'latin1' | 'utf8') => void;
    /** Each page as it is written (record history keeps what was delivered: lib/history/keep.ts); a promise holds the next page back. */
    onWritten?: (page: PickList) => Promise<void> | void;
    onDone?: () => void;
    /** Filled in by the walk: what it saw while the upstream moved (lib/picks-api/settle.ts). */
    report?: WalkReport;
    /** What the file is (its export or run, the licence): in a Parquet file's key/value metadata. */
    about?: Record<string, unknown>;
    /** The pages to write instead of a walk of the upstream (a searched set from the index: lib/records/search-export.ts). */
    pages?: AsyncGenerator<PickList>;
  } = {},
): Promise<StartedExport> {
  const client = options.client ?? picksApi();
  const { controller, unlink } = linkedController(options.signal);
  const finish = () => {
    unlink();
    options.onDone?.();
  };

  const startedAt = new Date();
  const writer = formatWriter(
    plan.format,
    { endpoint: plan.kind === 'picks' ? '/api/v1/picks' : '/api/v1/results', filters: plan.sent, startedAt: startedAt.toISOString() },
    plan.bom,
    options.about,
  );
  // byteStrings: records only written back out need not have their text decoded (byte-strings.ts).
  const walk = { signal: controller.signal, pageSize: 200, byteStrings: writer.byteStrings, report: options.report };
  const pages: AsyncGenerator<PickList> =
    options.pages ?? (plan.kind === 'picks' ? client.walkPickPages(plan.filters, walk) : client.walkResultPages(plan.filters, walk));
  const first = await pages.next().catch((error: unknown) => {
    finish();
    throw error;
  });

  let count = 0;
  let opened = false;
  const write = async (page: PickList): Promise<Uint8Array> => {
    options.onRecords?.(page.data, encodingOf(page));
    await options.onWritten?.(page);
    const bytes = await writer.page(page, count === 0);
    count += page.data.length;
    options.onPage?.(count, typeof page.requestId === 'string' ? page.requestId : null);
    return bytes;
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(output) {
        try {
          if (!opened) {
            opened = true;
            const opening = writer.head();
            const bytes = first.done ? opening : Buffer.concat([opening, await write(first.value)]);
            if (bytes.length > 0) return output.enqueue(bytes);
          }
          // A format that writes in row groups (Parquet) has nothing to send for most pages: read on until it has.
          for (let next = first.done ? first : await pages.next(); !next.done; next = await pages.next()) {
            const bytes = await write(next.value);
            if (bytes.length > 0) return output.enqueue(bytes);
          }
          output.enqueue(await writer.tail(count, options.report ? walkSummary(options.report) : null));
          finish();
          output.close();
        } catch (error) {
          finish();
          writer.abandon?.();
          // Stopped because the reader left (or the caller aborted): not a failure worth a log line.
          const failure = controller.signal.aborted
            ? toAppError(new DOMException('The export was cancelled.', 'AbortError'))
            : toAppError(error);
          if (failure.code !== 'ABORTED')
            console.error(`[portal] export failed after ${count} records: ${failure.code} ${failure.message}`);
          output.error(failure);
        }
      },
      async cancel(reason) {
        // The reader went away (browser closed, download cancelled): stop walking the upstream.
        controller.abort(reason);
        finish();
        writer.abandon?.();
        await pages.return(undefined).catch(() => undefined);
      },
    },
    { highWaterMark: 1 },
  );

  return {
    stream,
    filename: exportFilename(plan, startedAt),
    contentType: contentTypeOf(plan.format),
  };
}

/** e.g. picks-football-settled-20261122T120000Z.csv: what, filtered how, and when (UTC). */
export function exportFilename(plan: Pick<ExportPlan, 'kind' | 'format' | 'sent'>, at: Date): string {
  const parts = ['sport', 'league', 'status', 'result'].map((key) => plan.sent[key]).filter(Boolean) as string[];
  const label = fileLabel(parts.join('-'));
  return `${plan.kind}${label ? `-${label}` : ''}-${fileStamp(at)}.${plan.format}`;
}
