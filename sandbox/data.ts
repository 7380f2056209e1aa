import { BOOKMAKERS, CHANNELS, FIRST_NAMES, LAST_NAMES, LEAGUES, MARKETS, NATIONALITIES, type LeagueDef } from './catalogue';

/**
 * Deterministic seeded picks. The same seed, size and anchor day give the same records, ids and order.
 * A seeded record holds what never changes; its lifecycle (status, result, settledAt, publishedAt) is
 * derived from the clock at read time, so states move upcoming → live → settled or void as time passes.
 */

export interface SeedRecord {
  index: number;
  id: string;
  league: LeagueDef;
  eventMs: number;
  endMs: number;
  basePublishedMs: number;
  /** Set for the few picks withdrawn before their event. */
  voidAtMs: number | null;
  outcome: 'win' | 'loss' | 'push' | 'void';
  channels: string[];
  body: Record<string, unknown>;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const slug = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY) * DAY;
}

export interface GenerateOptions {
  count: number;
  seed: number;
  /** Start of the UTC day the data is laid around: events run from 60 days before to 30 days after. */
  anchorMs: number;
}

export function generatePicks({ count, seed, anchorMs }: GenerateOptions): SeedRecord[] {
  const rand = mulberry32(seed);
  const pickOf = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const records: SeedRecord[] = [];
  let eventNo = 0;

  while (records.length < count) {
    eventNo += 1;
    const league = pickOf(LEAGUES);
    const home = pickOf(league.sides);
    let away = pickOf(league.sides);
    while (away === home) away = pickOf(league.sides);
    const day = Math.floor(rand() * 90) - 60;
    const eventMs = anchorMs + day * DAY + (11 + Math.floor(rand() * 11)) * HOUR + Math.floor(rand() * 4) * 15 * 60_000;
    const endMs = eventMs + league.durationMin * 60_000;
    const round = league.rounds(1 + Math.floor(rand() * 12));
    const sourceEventId = `evt-${seed}-${eventNo}`;
    const picksHere = 1 + Math.floor(rand() * 3);

    for (let p = 0; p < picksHere && records.length < count; p += 1) {
      const markets = MARKETS[league.sport] ?? [];
      const market = pickOf(markets);
      const player = market.player ? `${pickOf(FIRST_NAMES)} ${pickOf(LAST_NAMES)}` : null;
      const { selection, line } = market.pick(rand, home, away, player);
      const probability = Math.round((0.38 + rand() * 0.34) * 1000) / 1000;
      const index = records.length;
      const roll = rand();
      const outcome = roll < 0.02 ? 'void' : roll < 0.05 && line !== null ? 'push' : rand() < probability ? 'win' : 'loss';
      const withdrawn = rand() < 0.03;
      records.push(
        buildRecord({
          rand,
          pickOf,
          index,
          seed,
          league,
          home,
          away,
          round,
          eventMs,
          endMs,
          sourceEventId,
          market: market.type,
          player,
          selection,
          line,
          probability,
          outcome,
          withdrawn,
        }),
      );
    }
  }
  // Upstream order: event time, then id. Cursors are positions in this order.
  records.sort((a, b) => a.eventMs - b.eventMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  records.forEach((record, i) => (record.index = i));
  return records;
}

interface BuildInput {
  rand: () => number;
  pickOf: <T>(items: readonly T[]) => T;
  index: number;
  seed: number;
  league: LeagueDef;
  home: string;
  away: string;
  round: string;
  eventMs: number;
  endMs: number;
  sourceEventId: string;
  market: string;
  player: string | null;
  selection: string;
  line: number | string | null;
  probability: number;
  outcome: SeedRecord['outcome'];
  withdrawn: boolean;
}

function buildRecord(input: BuildInput): SeedRecord {
  const { rand, pickOf, index, league, home, away, eventMs, endMs, probability } = input;
  // Opaque ids with the characters clients get wrong in paths: ':' '~' '+' '='.
  const id = `pk:${slug(league.league).slice(0, 12)}:${(index + 1).toString(36).padStart(5, '0')}~${Math.floor(rand() * 36 ** 3).toString(36)}+${input.seed % 97}=`;
  const fair = 1 / probability;
  const price = fair * (0.92 + rand() * 0.14);
  const odds = league.oddsFormat === 'american' ? toAmerican(price) : Math.round(price * 100) / 100;
  const edge = price * probability - 1;
  const tier = edge > 0.05 ? 'A' : edge > 0.02 ? 'B' : edge > -0.01 ? 'C' : 'D';
  const bookmaker = league.oddsFormat === 'american' ? pickOf(BOOKMAKERS.slice(3)) : pickOf(BOOKMAKERS);
  const nationality = () => (league.individual ? pickOf(NATIONALITIES) : league.country === null ? null : undefined);
  const channels = CHANNELS.filter((_, i) => i === 0 || rand() < 0.7);
  const homeLogo = rand() < 0.9 ? `/logos/teams/${slug(home)}.svg` : null;
  const awayLogo = rand() < 0.9 ? `/logos/teams/${slug(away)}.svg` : null;
  const hasReasoningMarkup = rand() < 0.02;

  const body: Record<string, unknown> = {
    id,
    sport: league.sport,
    league: league.league,
    roundOrWeek: rand() < 0.95 ? input.round : null,
    eventMetadata: { competition: league.competition, stage: rand() < 0.8 ? input.round : null },
    eventDescription: `${home} vs ${away}`,
    eventDate: new Date(eventMs).toISOString(),
    homeTeam: home,
    awayTeam: away,
    homeTeamLogoUrl: homeLogo,
    awayTeamLogoUrl: awayLogo,
    competitionLogoUrl: `/logos/competitions/${slug(league.competition)}.svg`,
    marketType: input.market,
    selection: input.selection,
    line: input.line,
    odds,
    oddsFormat: league.oddsFormat,
    bookmaker,
    probability,
    confidenceTier: tier,
    reasoning: hasReasoningMarkup
      ? `<b>Form</b> & "value" <script>alert('x')</script> — ${home} priced at ${odds}.`
      : `${input.selection} at ${odds} implies ${(100 / price).toFixed(1)}%; our model puts it at ${(probability * 100).toFixed(1)}% after ${home}'s last ${3 + Math.floor(rand() * 5)} fixtures and ${away}'s away record.`,
    // Lifecycle fields hold their place in spec order; their values come from the clock at read time.
    status: null,
    result: null,
    settledAt: null,
    publishedAt: null,
    attribution: `Picks © Licensed Sports Picks${league.oddsFormat === 'american' ? ' (US)' : ''}. Odds: ${bookmaker}.`,
    widgetEventIdentity: { sourceEventId: input.sourceEventId, sportKey: slug(league.sport), competitionKey: slug(league.competition) },
    homeIdentityKey: `team:${slug(home)}`,
    awayIdentityKey: `team:${slug(away)}`,
    subjectIdentityKey: input.player ? `player:${slug(input.player)}` : null,
    homeLogoUrl: homeLogo,
    awayLogoUrl: awayLogo,
    homeNationality: nationality(),
    awayNationality: nationality(),
    isPlayerPick: input.player !== null,
  };
  // Fields the source does not include are removed, not only null (spec §1): drop the undefined ones.
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  // A few records carry a field newer than v1's documented set (spec §9: fields can be added).
  if (rand() < 0.05) body.marketGroup = { key: input.market.split('_')[0], label: input.market.replace(/_/g, ' ') };

  return {
    index,
    id,
    league,
    eventMs,
    endMs,
    basePublishedMs: eventMs - Math.floor((6 + rand() * 234) * HOUR),
    voidAtMs: input.withdrawn ? eventMs - Math.floor((0.5 + rand() * 4) * HOUR) : null,
    outcome: input.outcome,
    channels,
    body,
  };
}

function toAmerican(decimal: number): number {
  return decimal >= 2 ? Math.round((decimal - 1) * 100) : -Math.round(100 / (decimal - 1));
}

export const SETTLE_DELAY_MS = 10 * 60_000;

export interface Lifecycle {
  published: boolean;
  status: 'upcoming' | 'live' | 'settled' | 'void';
  result: SeedRecord['outcome'] | null;
  settledAt: string | null;
  publishedAt: string;
}

/** Where a record stands at `now`. publishedAt moves to the time of the record's latest change. */
export function lifecycleAt(record: SeedRecord, now: number): Lifecycle {
  const settleMs = record.endMs + SETTLE_DELAY_MS;
  const at = (ms: number) => new Date(ms).toISOString();
  const base = { published: now >= record.basePublishedMs, result: null, settledAt: null };
  if (record.voidAtMs !== null && now >= record.voidAtMs) return { ...base, status: 'void', publishedAt: at(record.voidAtMs) };
  if (now < record.eventMs) return { ...base, status: 'upcoming', publishedAt: at(record.basePublishedMs) };
  if (now < settleMs) return { ...base, status: 'live', publishedAt: at(record.eventMs) };
  return { ...base, status: 'settled', result: record.outcome, settledAt: at(settleMs), publishedAt: at(settleMs) };
}
