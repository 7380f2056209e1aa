import { encodingOf, pageBytes, type Pick, type PickList } from '../picks-api';
import { toSafeJson } from '../safe-json';

/**
 * A streamed JSON document: export metadata first, then `data` with every record exactly as the
 * upstream delivered it, then the record count. One record per line, so a reader can count progress
 * by newlines.
 *
 * Records are the upstream's own bytes when they can be: the page's body was already parsed and
 * validated, so its `data` elements are located with one pass over the bytes (dataSpans) and copied,
 * instead of re-serialising every record (cheaper, as bench:export shows).
 * A body this does not read (records spread over several lines, an escaped or unusual top-level key,
 * a count that disagrees with the parse) is re-serialised with JSON.stringify: same values, one per line.
 */

export interface ExportMeta {
  endpoint: string;
  filters: Record<string, string>;
  startedAt: string;
}

export function jsonOpening(meta: ExportMeta): string {
  return `{"export":${toSafeJson(meta)},\n"data":[`;
}

/** A page of records, re-serialised (JSON.stringify never emits a raw newline inside a value). */
export function jsonRecords(picks: Pick[], first: boolean): string {
  if (picks.length === 0) return '';
  return `${first ? '\n' : ',\n'}${picks.map((pick) => JSON.stringify(pick)).join(',\n')}`;
}

/** A page of records as bytes: the upstream's own where its body allows, else re-serialised. */
export function jsonPage(page: PickList, first: boolean): Uint8Array {
  return recordBytes(page, first ? 'document-first' : 'document');
}

/** A page of records as JSON Lines: each record on its line, ended by LF, nothing around them. */
export function jsonLinesPage(page: PickList): Uint8Array {
  return recordBytes(page, 'lines');
}

/**
 * The page's records, one a line: in a document, each line after the first begins with a comma (and the page's
 * first line with one unless it is the document's first); as JSON Lines, each line ends with LF.
 */
function recordBytes(page: PickList, shape: 'document-first' | 'document' | 'lines'): Uint8Array {
  if (page.data.length === 0) return new Uint8Array(0);
  const bytes = pageBytes(page);
  const spans = bytes ? dataSpans(bytes) : null;
  if (!bytes || !spans || spans.length !== page.data.length * 2)
    return Buffer.from(
      shape === 'lines'
        ? `${page.data.map((pick) => JSON.stringify(pick)).join('\n')}\n`
        : jsonRecords(page.data, shape === 'document-first'),
      encodingOf(page),
    );
  const lines = shape === 'lines';
  let size = lines ? page.data.length : (shape === 'document-first' ? 1 : 2) + (page.data.length - 1) * 2;
  for (let k = 0; k < spans.length; k += 2) size += spans[k + 1]! - spans[k]!;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  if (!lines) {
    if (shape === 'document') out[at++] = COMMA;
    out[at++] = LF;
  }
  for (let k = 0; k < spans.length; k += 2) {
    if (k > 0 && !lines) {
      out[at++] = COMMA;
      out[at++] = LF;
    }
    out.set(bytes.subarray(spans[k]!, spans[k + 1]!), at);
    at += spans[k + 1]! - spans[k]!;
    if (lines) out[at++] = LF;
  }
  return out;
}

/** The document's end: the count, and, when the upstream moved during the walk, what the walk did about it. */
export function jsonClosing(count: number, walk: object | null = null): string {
  const moved = walk ? `,\n"walk":${JSON.stringify(walk)}` : '';
  return `\n],\n"count":${count}${moved},\n"completedAt":${JSON.stringify(new Date().toISOString())}}\n`;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const LF = 0x0a;
const CR = 0x0d;
const DATA_KEY = [0x22, 0x64, 0x61, 0x74, 0x61, 0x22]; // "data"

/**
 * Where each element of a list body's `data` array lies in its bytes: [start, end, start, end, ...],
 * or null when the body is not read here. Only for bodies JSON.parse has accepted: it locates, it does
 * not validate. Reads `{ ..., "data": [ {...}, ... ], ... }` (the last "data" wins, as in JSON.parse) or
 * a bare array; every element must be an object on one line. UTF-8 continuation bytes are never
 * below 0x80, so structural bytes are found byte by byte without decoding.
 */
export function dataSpans(bytes: Uint8Array): number[] | null {
  const n = bytes.length;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength); // a view, not a copy
  let i = 0;
  // Just past the quote closing a string whose content starts at `from` (n when it never closes).
  const stringEnd = (from: number): number => {
    for (let k = from; ; k += 1) {
      k = buffer.indexOf(QUOTE, k);
      if (k < 0) return n;
      let backslashes = 0;
      while (k - backslashes - 1 >= from && bytes[k - backslashes - 1] === BACKSLASH) backslashes += 1;
      if (backslashes % 2 === 0) return k + 1; // an even run of backslashes escapes itself, not the quote
    }
  };
  const skipSpace = () => {
    while (i < n) {
      const b = bytes[i]!;
      if (b !== 0x20 && b !== 0x09 && b !== LF && b !== CR) return;
      i += 1;
    }
  };
  // From an opening quote to just past the closing one; true when the string holds an escape.
  const skipString = (): boolean => {
    let escaped = false;
    i += 1;
    while (i < n) {
      const b = bytes[i++]!;
      if (b === QUOTE) return escaped;
      if (b === BACKSLASH) {
        escaped = true;
        i += 1;
      }
    }
    return escaped;
  };
  // Past one value; false when an object or array value spans lines (a raw CR or LF outside strings).
  const skipValue = (): boolean => {
    const b = bytes[i];
    if (b === QUOTE) return (skipString(), true);
    if (b !== OPEN_OBJECT && b !== OPEN_ARRAY) {
      while (i < n) {
        const c = bytes[i]!;
        if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || c === 0x20 || c === 0x09 || c === LF || c === CR) break;
        i += 1;
      }
      return true;
    }
    // The hot loop (most bytes are inside records, most of those inside strings): a string is crossed in
    // one jump to its closing quote (memchr, through Buffer#indexOf), not byte by byte.
    let depth = 0;
    let oneLine = true;
    let j = i;
    while (j < n) {
      const c = bytes[j++]!;
      if (c === QUOTE) j = stringEnd(j);
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth += 1;
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        depth -= 1;
        if (depth === 0) break;
      } else if (c === LF || c === CR) oneLine = false;
    }
    i = j;
    return depth === 0 && oneLine;
  };
  const elements = (): number[] | null => {
    const spans: number[] = [];
    i += 1;
    skipSpace();
    if (bytes[i] === CLOSE_ARRAY) return ((i += 1), spans);
    for (;;) {
      skipSpace();
      if (bytes[i] !== OPEN_OBJECT) return null;
      const start = i;
      if (!skipValue()) return null;
      spans.push(start, i);
      skipSpace();
      if (bytes[i] === COMMA) i += 1;
      else if (bytes[i] === CLOSE_ARRAY) return ((i += 1), spans);
      else return null;
    }
  };

  skipSpace();
  if (bytes[i] === OPEN_ARRAY) return elements();
  if (bytes[i] !== OPEN_OBJECT) return null;
  i += 1;
  let spans: number[] | null = null;
  for (;;) {
    skipSpace();
    if (bytes[i] !== QUOTE) return null;
    const keyStart = i;
    if (skipString()) return null; // an escaped key might spell "data": not worth guessing
    const isData = i - keyStart === DATA_KEY.length && DATA_KEY.every((b, k) => bytes[keyStart + k] === b);
    skipSpace();
    if (bytes[i] !== COLON) return null;
    i += 1;
    skipSpace();
    if (isData) {
      if (bytes[i] !== OPEN_ARRAY) return null;
      spans = elements();
      if (!spans) return null;
    } else {
      skipValue();
    }
    skipSpace();
    if (bytes[i] === COMMA) i += 1;
    else if (bytes[i] === CLOSE_OBJECT) return spans;
    else return null;
  }
}
