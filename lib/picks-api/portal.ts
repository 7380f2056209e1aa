import 'server-only';
import { cache } from 'react';
import { getConfig } from '../config';
import { settle, type Settled } from '../errors';
import type { FilterKind, PickFilters } from './filters';
import type { LicenceSummary } from '../vocabulary/licence';
import { summariseLicence } from './licence';
import { toPickRow, type PickRow } from './pick-view';
import { logoPolicy, picksApi, type CallOptions } from './index';
import type { OpenObject, Pick } from './schemas';

/**
 * The upstream in the shapes pages use: the licence already read from /me, table rows with logos
 * resolved and vetted, one pick with its row. Pages and components call these, never the raw client.
 */

export interface Licence {
  summary: LicenceSummary;
  /** /me as delivered (secrets redacted), for the page that shows all of it. */
  document: OpenObject;
  /** When /me was read (a proof's licence attestation names it). */
  readAt: string;
}

const toLicence = (me: Settled<OpenObject>): Settled<Licence> =>
  me.ok
    ? {
        ok: true,
        value: { summary: summariseLicence(me.value, getConfig().PICKS_ME_FIELDS), document: me.value, readAt: new Date().toISOString() },
      }
    : me;

/** The licence as /me says it now: for the page that shows it. */
export async function getLicence(): Promise<Settled<Licence>> {
  return toLicence(await settle(picksApi().me()));
}

// The licence changes rarely and every page's filters and summary need it: one /me per process every
// PICKS_ME_CACHE_SECONDS, shared by concurrent pages, instead of one per page view. Failures are not kept.
let recent: { at: number; licence: Promise<Settled<Licence>> } | null = null;

/** The licence for pages that only summarise it (filters, overview): at most PICKS_ME_CACHE_SECONDS old. */
export function getRecentLicence(): Promise<Settled<Licence>> {
  const ttlMs = getConfig().PICKS_ME_CACHE_SECONDS * 1000;
  if (ttlMs === 0) return getLicence();
  if (recent && Date.now() - recent.at < ttlMs) return recent.licence;
  const entry = {
    at: Date.now(),
    // Not tied to the page that asked first: a browser leaving must not fail the read for the others.
    licence: settle(picksApi().me({ signal: new AbortController().signal })).then((me) => {
      if (!me.ok && recent === entry) recent = null;
      return toLicence(me);
    }),
  };
  recent = entry;
  return entry.licence;
}

/**
 * The licence summary, or null when /me failed: filter choices then fall back to free text. Once per page render
 * (React's cache): the filters, the facets and the index's total of one page share a single read, even with
 * PICKS_ME_CACHE_SECONDS=0, so a page asks /me once, before its records.
 */
export const licenceOrNull = cache(async (): Promise<LicenceSummary | null> => {
  const licence = await getRecentLicence();
  return licence.ok ? licence.value.summary : null;
});

export interface RecordsPage {
  rows: PickRow[];
  hasMore: boolean;
  nextCursor: string | null;
  requestId: string | null;
}

/** One page of picks or results for the filters, as table rows. */
export async function getRecordsPage(kind: FilterKind, filters: PickFilters): Promise<RecordsPage> {
  const api = picksApi();
  const list = await (kind === 'picks' ? api.listPicks(filters) : api.listResults(filters));
  const logos = logoPolicy();
  return {
    rows: list.data.map((pick) => toPickRow(pick, logos)),
    hasMore: list.page.hasMore,
    nextCursor: list.page.nextCursor ?? null,
    requestId: list.requestId ?? null,
  };
}

/** One pick, as delivered and as a row. */
export async function getPickDetail(id: string): Promise<{ pick: Pick; row: PickRow }> {
  const pick = await picksApi().getPick(id);
  return { pick, row: toPickRow(pick, logoPolicy()) };
}

/** The gateway's availability (no private data), kept as data so the overview can show an outage. */
export function getHealth(call: CallOptions = {}): Promise<Settled<OpenObject>> {
  return settle(picksApi().health(call));
}

export const HEALTH_REUSE_MS = 5_000;
let recentHealth: { at: number; health: Promise<Settled<OpenObject>> } | null = null;

/**
 * The gateway's availability as asked at most HEALTH_REUSE_MS ago, failures included, shared by every page
 * and probe of the process (the overview and GET /api/health): a status, the same for everyone, that would
 * otherwise be one more upstream request and a few milliseconds on every overview. It never waits out a
 * throttling pause (that is itself the answer), and no page's abort ends it for the others.
 */
export function getRecentHealth(now = Date.now()): { checkedAt: number; health: Promise<Settled<OpenObject>> } {
  if (!recentHealth || now - recentHealth.at >= HEALTH_REUSE_MS) {
    recentHealth = { at: now, health: getHealth({ maxWaitMs: 0, signal: new AbortController().signal }) };
  }
  return { checkedAt: recentHealth.at, health: recentHealth.health };
}
