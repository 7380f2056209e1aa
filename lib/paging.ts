import type { PageSearchParams } from './picks-api/filters';
/**
 * Going back through cursor pages: the cursors of the pages before this one travel in the URL as
 * `trail` (base64url JSON), so a shared link or the back button lands on the same page. A damaged
 * trail only loses "Previous", never the page.
 */

const MAX_TRAIL = 100;

export function encodeTrail(cursors: string[]): string {
  return Buffer.from(JSON.stringify(cursors.slice(-MAX_TRAIL)), 'utf8').toString('base64url');
}

export function decodeTrail(value: string | string[] | undefined): string[] {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64_000) return [];
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    return Array.isArray(parsed) && parsed.every((c) => typeof c === 'string' && c.length <= 2048) ? parsed : [];
  } catch {
    return [];
  }
}

/** `pathname?query` with some parameters changed (null removes one). */
/** How far in a page number (?page=N) may lead: each page before it is an upstream request (lib/records/jump.ts). */
export const JUMP_MAX_PAGES = 100;

export function hrefWith(pathname: string, params: URLSearchParams, changes: Record<string, string | null>): string {
  const next = new URLSearchParams(params);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  const query = next.toString();
  return query ? `${pathname}?${query}` : pathname;
}

/** Next's searchParams object as URLSearchParams (repeated keys kept, so the parser can refuse them). */
export function toSearchParams(input: PageSearchParams): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(input)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) params.append(key, item);
  }
  return params;
}

/** The page's number in a walk through the pager (its trail), or null when it was opened from a cursor alone. */
export const pageNumberOf = (cursor: string | undefined, trail: string[]): number | null =>
  cursor && trail.length === 0 ? null : trail.length + 1;
