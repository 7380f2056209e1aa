import 'server-only';
import { isUtf8 } from 'node:buffer';

/**
 * Byte strings: a page's body read with one character per byte (Latin-1) instead of decoded as UTF-8, for
 * consumers that only write records back out as bytes (exports). Decoding was a large share of an export's CPU
 * (docs/adr/0004) and JSON.parse reads a one-byte string faster; written back with
 * `Buffer.from(text, 'latin1')`, such text gives exactly the bytes the decoded text gives as UTF-8.
 *
 * That holds when every character of a parsed string is one byte of the body's UTF-8, so only for bodies
 * that are valid UTF-8 (the decoder would have replaced bad bytes), hold no U+FEFF (a decoder drops it at the
 * start; papaparse quotes text holding it, which it could not see here) and no \u escape at or above 0x80
 * (JSON.parse makes it one character, not its UTF-8 bytes). Everything a writer does to such strings
 * (papaparse's ASCII tests and quoting, JSON.stringify, concatenation) then commutes with UTF-8 encoding.
 * Checking a body costs a few per cent of decoding it (isUtf8 is simdutf).
 */

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const ESCAPE_U = Buffer.from('\\u');
const BYTE_STRINGS = Symbol('byte strings');

/** True when `bytes` may be read as byte strings (see above); false means "decode as UTF-8". */
export function readableAsByteStrings(bytes: Uint8Array): boolean {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength); // a view, not a copy
  if (!isUtf8(buffer) || buffer.indexOf(BOM) >= 0) return false;
  for (let at = buffer.indexOf(ESCAPE_U); at >= 0; at = buffer.indexOf(ESCAPE_U, at + 2)) {
    // \u00XY with X at most 7 is ASCII either way. An escaped backslash followed by "u" also lands here: a
    // false alarm that only costs this page the ordinary decoding.
    const x = bytes[at + 4] ?? 0;
    if (bytes[at + 2] !== 0x30 || bytes[at + 3] !== 0x30 || x < 0x30 || x > 0x37) return false;
  }
  return true;
}

/** A body read as byte strings: one character per byte. */
export function byteStringText(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** Real text from a byte string (ASCII, the common case, is returned as it is). */
export function textOfByteString(value: string): string {
  return /^[\x00-\x7f]*$/.test(value) ? value : Buffer.from(value, 'latin1').toString('utf8');
}

/** Marks a parsed page whose strings are byte strings, so its writer encodes them as Latin-1. */
export function markByteStrings<T extends object>(page: T): T {
  return Object.defineProperty(page, BYTE_STRINGS, { value: true, enumerable: false });
}

/** True for a page whose strings are byte strings: write its text with `Buffer.from(text, 'latin1')`. */
export function hasByteStrings(page: object): boolean {
  return (page as { [BYTE_STRINGS]?: boolean })[BYTE_STRINGS] === true;
}

/** The encoding that turns text made from this page's strings into the right UTF-8 bytes. */
export function encodingOf(page: object): 'latin1' | 'utf8' {
  return hasByteStrings(page) ? 'latin1' : 'utf8';
}

/** A byte-string body's request id and cursor as real text, in place (what the walk and the audit read). */
export function envelopeAsText(body: unknown): void {
  if (!body || typeof body !== 'object') return;
  const envelope = body as { requestId?: unknown; page?: { nextCursor?: unknown } | null };
  if (typeof envelope.requestId === 'string') envelope.requestId = textOfByteString(envelope.requestId);
  const page = envelope.page;
  if (page && typeof page === 'object' && typeof page.nextCursor === 'string') page.nextCursor = textOfByteString(page.nextCursor);
}
