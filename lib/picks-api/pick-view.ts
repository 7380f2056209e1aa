import type { Pick } from './schemas';

/**
 * Display-ready rows for the tables: only what a table shows, logos already resolved and vetted.
 * Pure and shared by pages; the browser receives rows, not whole upstream records.
 */

export interface PickRow {
  id: string | null;
  homeTeam: string | null;
  awayTeam: string | null;
  eventDescription: string | null;
  homeLogo: string | null;
  awayLogo: string | null;
  competitionLogo: string | null;
  competition: string | null;
  eventDate: string | null;
  sport: string | null;
  league: string | null;
  roundOrWeek: string | null;
  marketType: string | null;
  selection: string | null;
  line: string | number | null;
  odds: number | null;
  oddsFormat: string | null;
  bookmaker: string | null;
  probability: number | null;
  confidenceTier: string | null;
  status: string | null;
  result: string | null;
  publishedAt: string | null;
  attribution: string | null;
  isPlayerPick: boolean;
}

type Place = { sport: string | null; league: string | null; competition: string | null; roundOrWeek: string | null };

/**
 * Where a record belongs, named the one way every page says it: sport · league · round. The league is what filters,
 * chips, facets and menus name; the competition (eventMetadata.competition, e.g. "WTA 1000" within "WTA Tour") is
 * a detail of its own, never in the league's place (only where the league is missing).
 */
export function placeOf(r: Place): string {
  return [r.sport, r.league ?? r.competition, r.roundOrWeek].filter(Boolean).join(' · ');
}

/** The competition, when it names something the league does not. */
export const competitionBesides = (r: Place): string | null =>
  r.competition && r.league && r.competition !== r.league ? r.competition : null;

/**
 * Where logos may come from: relative URLs resolve against the upstream, and only the upstream's own
 * origin and PORTAL_IMAGE_ORIGINS may serve them (the same list as the CSP's img-src), so a record
 * cannot make browsers call an arbitrary host (a tracking pixel).
 */
export interface LogoPolicy {
  upstreamBase: string;
  origins: readonly string[];
}

/** An http(s) URL for an <img> from an allowed origin, relative ones resolved against the upstream; anything else is null. */
export function resolveLogoUrl(value: unknown, policy: LogoPolicy): string | null {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 2048) return null;
  // Team and competition logos repeat across rows: each URL is vetted once per policy (URL parsing is a
  // measurable part of building a page of rows).
  const seen = vetted(policy);
  let url = seen.get(value);
  if (url === undefined) {
    url = vet(value, policy);
    if (seen.size > 10_000) seen.clear();
    seen.set(value, url);
  }
  return url;
}

const vettedByPolicy = new WeakMap<LogoPolicy, Map<string, string | null>>();
function vetted(policy: LogoPolicy) {
  let seen = vettedByPolicy.get(policy);
  if (!seen) vettedByPolicy.set(policy, (seen = new Map()));
  return seen;
}

function vet(value: string, policy: LogoPolicy): string | null {
  try {
    const base = new URL(`${policy.upstreamBase.replace(/\/+$/, '')}/`);
    const url = new URL(value.trim(), base);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null; // javascript:, data:, blob:, ...
    if (url.username || url.password) return null;
    if (url.origin !== base.origin && !policy.origins.includes(url.origin)) return null;
    return url.href;
  } catch {
    return null;
  }
}

export function toPickRow(pick: Pick, logos: LogoPolicy): PickRow {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    id: text(pick.id),
    homeTeam: text(pick.homeTeam),
    awayTeam: text(pick.awayTeam),
    eventDescription: text(pick.eventDescription),
    homeLogo: resolveLogoUrl(pick.homeTeamLogoUrl ?? pick.homeLogoUrl, logos),
    awayLogo: resolveLogoUrl(pick.awayTeamLogoUrl ?? pick.awayLogoUrl, logos),
    competitionLogo: resolveLogoUrl(pick.competitionLogoUrl, logos),
    competition: text(pick.eventMetadata?.competition),
    eventDate: text(pick.eventDate),
    sport: text(pick.sport),
    league: text(pick.league),
    roundOrWeek: text(pick.roundOrWeek),
    marketType: text(pick.marketType),
    selection: text(pick.selection),
    line: pick.line ?? null,
    odds: pick.odds ?? null,
    oddsFormat: text(pick.oddsFormat),
    bookmaker: text(pick.bookmaker),
    probability: pick.probability ?? null,
    confidenceTier: text(pick.confidenceTier),
    status: text(pick.status),
    result: text(pick.result),
    publishedAt: text(pick.publishedAt),
    attribution: text(pick.attribution),
    isPlayerPick: pick.isPlayerPick === true,
  };
}

export type ProbabilityScale = 'unit' | 'percent';

/** The spec leaves probability's scale open (§2.2): values above 1 mean a 0–100 scale. */
export function detectProbabilityScale(values: Iterable<number | null | undefined>): ProbabilityScale {
  for (const value of values) if (typeof value === 'number' && value > 1) return 'percent';
  return 'unit';
}

export function formatProbability(value: number | null, scale: ProbabilityScale): string {
  if (value === null || !Number.isFinite(value)) return '—';
  const percent = scale === 'unit' ? value * 100 : value;
  return `${percent.toFixed(1)}%`;
}

/** A market as people say it: `player_shots_on_target` is "player shots on target"; a dash when there is none. */
export function marketLabel(marketType: string | null | undefined): string {
  return marketType ? marketType.replace(/[_-]+/g, ' ').trim() : '—';
}

export function formatOdds(odds: number | null, format: string | null): string {
  if (odds === null || !Number.isFinite(odds)) return '—';
  if (format === 'american') return odds > 0 ? `+${odds}` : String(odds);
  return String(odds);
}

export function initials(name: string | null | undefined): string {
  const words = (name ?? '')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  return (
    words
      .slice(0, 2)
      .map((w) => w[0]?.toUpperCase() ?? '')
      .join('') || '?'
  ).slice(0, 2);
}

export const pickHref = (id: string) => `/picks/${encodeURIComponent(id)}`;

/** Next 16 hands a dynamic segment over still percent-encoded: decode it exactly once (malformed: no id). */
export function idFromSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
