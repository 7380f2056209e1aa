import 'server-only';
import { linkedController } from '../abort';
import { envelopeAsText, markByteStrings, readableAsByteStrings } from './byte-strings';
import { paginationError } from './errors';
import { pageSchema, type PickList } from './schemas';

/**
 * Fetches one page's body for the walk; `onBytes` gets the raw bytes before they are parsed, and answers
 * true when the body is to be read as byte strings (byte-strings.ts) instead of decoded as UTF-8.
 */
export type FetchPageBody = (cursor: string | undefined, signal: AbortSignal, onBytes: (bytes: Uint8Array) => boolean) => Promise<unknown>;

/**
 * Every page of a list (spec §4.2), one request ahead. The next page is asked for as soon as this one's
 * bytes arrive, with the cursor read straight from them (sniffNextCursor), so the upstream works while
 * we decode, parse and validate; the parsed paging block then confirms the guess, or the guessed request
 * is cancelled and the right one sent. Cursors that repeat, go missing or never end stop the walk.
 */
export async function* walkPages(
  fetchBody: FetchPageBody,
  validate: (body: unknown) => PickList,
  options: {
    signal?: AbortSignal;
    maxPages: number;
    /** The consumer only writes records back out as bytes: pages that allow it come as byte strings, marked. */
    byteStrings?: boolean;
  },
): AsyncGenerator<PickList> {
  const { maxPages } = options;
  // Our own controller: when the consumer stops early (break, throw), the requests ahead are cancelled too.
  const { controller, unlink } = linkedController(options.signal);
  const seen = new Set<string>();
  let requested = 0;

  /** One upstream request of the walk, and the request its bytes let us guess should follow it. */
  interface Request {
    cursor: string | undefined;
    body: Promise<unknown>;
    bytes: Uint8Array | null;
    asByteStrings: boolean;
    guess: Request | null;
    cancel: () => void;
  }
  let current: Request;
  let waiting = false; // the walk is waiting for current: its consumer has asked for the next page
  const request = (cursor: string | undefined): Request => {
    const own = new AbortController();
    const stop = () => own.abort(controller.signal.reason);
    controller.signal.addEventListener('abort', stop, { once: true });
    requested += 1;
    const self: Request = {
      cursor,
      guess: null,
      bytes: null,
      asByteStrings: false,
      body: Promise.resolve(),
      cancel: () => (own.abort(), self.guess?.cancel()),
    };
    self.body = fetchBody(cursor, own.signal, (bytes) => {
      self.bytes = bytes;
      self.asByteStrings = options.byteStrings === true && readableAsByteStrings(bytes);
      // Only from the page the walk's consumer is waiting for: never more than one page ahead of the reader.
      if (waiting && self === current && !own.signal.aborted && requested < maxPages) {
        const guess = sniffNextCursor(bytes);
        if (guess !== null && guess !== cursor && !seen.has(guess)) self.guess = request(guess);
      }
      return self.asByteStrings;
    });
    // Awaited on its turn, so not an unhandled rejection meanwhile; once settled it needs no abort listener.
    self.body.catch(() => undefined).finally(() => controller.signal.removeEventListener('abort', stop));
    return self;
  };

  try {
    current = request(undefined);
    for (let pageNumber = 1; ; pageNumber += 1) {
      waiting = true;
      const body = await current.body.finally(() => (waiting = false));
      const { guess: guessed, bytes, asByteStrings, cursor: requestedWith } = current;
      if (asByteStrings) envelopeAsText(body); // the walk and the audit read the cursor and request id as text
      // Unlink what is used: settled requests chained to each other kept every page reachable for a while (measured).
      current.guess = null;
      current.bytes = null;
      current.body = SETTLED;
      const paging = pageSchema.safeParse((body as { page?: unknown } | null)?.page);
      const hasMore = paging.success && paging.data.hasMore;
      const nextCursor = hasMore ? paging.data.nextCursor : undefined;
      if (guessed && guessed.cursor !== nextCursor) guessed.cancel(); // a wrong guess: that request is dropped
      if (hasMore) {
        if (!nextCursor) throw paginationError('said there are more pages but gave no cursor', body);
        if (seen.has(nextCursor)) throw paginationError('repeated a cursor it had already given', body);
        if (pageNumber >= maxPages) throw paginationError(`kept paging past ${maxPages} pages`, body);
        seen.add(nextCursor);
        current = guessed && guessed.cursor === nextCursor ? guessed : request(nextCursor);
      }
      const list = validate(body);
      if (bytes) Object.defineProperty(list, PAGE_BYTES, { value: bytes, enumerable: false, configurable: true });
      Object.defineProperty(list, PAGE_CURSOR, { value: requestedWith, enumerable: false });
      if (asByteStrings) markByteStrings(list);
      yield list;
      if (!hasMore) return;
    }
  } finally {
    unlink();
    controller.abort();
  }
}

const SETTLED: Promise<unknown> = Promise.resolve();
const PAGE_BYTES = Symbol('page bytes');
const PAGE_CURSOR = Symbol('page cursor');

/** The cursor a walked page was asked for with (undefined for the first page): settle.ts asks for it again. */
export function pageCursor(page: PickList): string | undefined {
  return (page as PickList & { [PAGE_CURSOR]?: string })[PAGE_CURSOR];
}

/** A page whose records were changed no longer matches its body: writers re-serialise it. */
export function forgetPageBytes(page: PickList): void {
  delete (page as PickList & { [PAGE_BYTES]?: Uint8Array })[PAGE_BYTES];
}

/**
 * The body a walked page was parsed from, as the upstream sent it (undefined for pages not from a walk).
 * The JSON export copies records from it instead of re-serialising them.
 */
export function pageBytes(page: PickList): Uint8Array | undefined {
  return (page as PickList & { [PAGE_BYTES]?: Uint8Array })[PAGE_BYTES];
}

const CURSOR_KEY = Buffer.from('"nextCursor"');
const CURSOR_VALUE = /^"nextCursor"\s*:\s*("(?:[^"\\\u0000-\u001f]|\\.){1,4096}")/;

/**
 * page.nextCursor read from a body's bytes without parsing the body: a guess that lets the next request
 * leave before this page is decoded and parsed. The page block usually
 * ends the body, so the search from the end finds it at once. Null when there is no string cursor to
 * read; a wrong guess costs one cancelled request, as walkPages checks it against the parsed page.
 */
export function sniffNextCursor(bytes: Uint8Array): string | null {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = buffer.lastIndexOf(CURSOR_KEY);
  if (at < 0) return null;
  const match = CURSOR_VALUE.exec(buffer.toString('utf8', at, at + 8_400));
  if (!match) return null;
  try {
    const value: unknown = JSON.parse(match[1]!);
    return typeof value === 'string' && value !== '' ? value : null;
  } catch {
    return null;
  }
}
