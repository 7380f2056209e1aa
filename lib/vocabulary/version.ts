import { hash } from 'node:crypto';

/**
 * A version of a record: its content as canonical JSON (keys sorted at every depth, null and absent members
 * left out: the spec makes them one, §9) and the sha256 of those bytes, which names it. The same content
 * therefore has one name whoever saw it (the poller, an export, a delivery), and is stored once.
 */

export const OBSERVERS = ['poll', 'export', 'delivery', 'api'] as const;
export type Observer = (typeof OBSERVERS)[number];

export interface Version {
  id: string;
  /** sha256 of `body`'s UTF-8 bytes, base64url. */
  digest: string;
  /** The canonical JSON, as real (UTF-8 decoded) text. */
  body: string;
  sport: string | null;
  league: string | null;
  status: string | null;
  result: string | null;
  eventMs: number | null;
}

// Records of one feed share a few shapes: each shape's keys are sorted once, each key quoted once.
const SHAPES = new Map<string, { key: string; quoted: string }[]>();
const MAX_SHAPES = 1_000;

function sortedKeys(record: Record<string, unknown>): { key: string; quoted: string }[] {
  const keys = Object.keys(record);
  const shape = keys.join('\u0000');
  let sorted = SHAPES.get(shape);
  if (!sorted) {
    sorted = keys.sort().map((key) => ({ key, quoted: `${JSON.stringify(key)}:` }));
    if (SHAPES.size < MAX_SHAPES) SHAPES.set(shape, sorted);
  }
  return sorted;
}

/** JSON with object keys sorted and null/absent members left out, at every depth (arrays keep their nulls). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item == null ? 'null' : canonicalJson(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  let out = '';
  for (const { key, quoted } of sortedKeys(record)) {
    const member = record[key];
    if (member == null) continue;
    out += `${out ? ',' : ''}${quoted}${typeof member === 'object' ? canonicalJson(member) : JSON.stringify(member)}`;
  }
  return `{${out}}`;
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

/**
 * The version of one record as read. `encoding` is the page's: byte strings ('latin1', lib/picks-api/byte-strings.ts)
 * give the same canonical bytes as decoded text, so both name a content alike.
 */
export function versionOf(record: Record<string, unknown> & { id: string }, encoding: 'latin1' | 'utf8' = 'utf8'): Version {
  const canonical = canonicalJson(record);
  const body = encoding === 'latin1' ? Buffer.from(canonical, 'latin1').toString('utf8') : canonical;
  const eventMs = typeof record.eventDate === 'string' ? Date.parse(record.eventDate) : NaN;
  const decoded = (value: unknown) => {
    const got = text(value);
    return got !== null && encoding === 'latin1' ? Buffer.from(got, 'latin1').toString('utf8') : got;
  };
  return {
    id: decoded(record.id) ?? String(record.id),
    digest: digestOf(canonical, encoding),
    body,
    sport: decoded(record.sport),
    league: decoded(record.league),
    status: decoded(record.status),
    result: decoded(record.result),
    eventMs: Number.isFinite(eventMs) ? eventMs : null,
  };
}

function digestOf(canonical: string, encoding: 'latin1' | 'utf8'): string {
  return hash('sha256', Buffer.from(canonical, encoding), 'base64url');
}

/** The record a stored body holds. */
export const bodyOf = (body: string) => JSON.parse(body) as Record<string, unknown>;
