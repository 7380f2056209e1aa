import type { SeedRecord } from './data';
import type { Licence } from './licences';

/** Which seeded records a licence delivers, and where a time falls in the records sorted by event time. */

const DAY = 86_400_000;

export function inLicence(licence: Licence, record: SeedRecord, anchorMs: number): boolean {
  if (!licence.sports.includes(record.league.sport) || !licence.leagues.includes(record.league.league)) return false;
  if (licence.windowDays) {
    if (record.eventMs < anchorMs + licence.windowDays.from * DAY || record.eventMs >= anchorMs + licence.windowDays.to * DAY) return false;
  }
  return record.channels.some((channel) => licence.channels.includes(channel));
}

export function lowerBound(list: SeedRecord[], eventMs: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as SeedRecord).eventMs < eventMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
