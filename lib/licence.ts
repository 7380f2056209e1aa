/**
 * /me has no documented shape (spec §4). This reads the licence fields people look for under the names
 * APIs commonly use, and says "not stated" (null) for whatever it cannot find. Pure: no I/O.
 */

type JsonObject = Record<string, unknown>;

export interface LicenceSummary {
  partner: string | null;
  licenceId: string | null;
  status: string | null;
  sports: string[] | null;
  leagues: string[] | null;
  from: string | null;
  to: string | null;
  contentMode: string | null;
  channels: string[] | null;
  expiresAt: string | null;
}

const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first value present (not null or absent) under any of the names, in source order. */
function firstPresent(sources: JsonObject[], names: string[]): unknown {
  for (const source of sources) {
    for (const name of names) {
      if (source[name] !== undefined && source[name] !== null) return source[name];
    }
  }
  return undefined;
}

function text(value: unknown): string | null {
  if (typeof value === 'string' && value.trim()) return value.trim();
  if (typeof value === 'number') return String(value);
  if (isJsonObject(value)) return text(value.name ?? value.label ?? value.id);
  return null;
}

function list(value: unknown): string[] | null {
  if (typeof value === 'string')
    return value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  if (!Array.isArray(value)) return null;
  const names = value
    .map((item) => text(isJsonObject(item) ? (item.name ?? item.league ?? item.sport ?? item.label ?? item.id) : item))
    .filter((v): v is string => v !== null);
  return [...new Set(names)];
}

export function summariseLicence(me: JsonObject): LicenceSummary {
  const licence = [me.licence, me.license, me.activeLicence, me.activeLicense].find(isJsonObject);
  const sources = licence ? [licence, me] : [me];
  const window = firstPresent(sources, ['dateWindow', 'window', 'dateRange', 'period', 'validity']);
  const windowSources = isJsonObject(window) ? [window, ...sources] : sources;
  const partner = firstPresent([me], ['partner', 'partnerName', 'organisation', 'organization', 'customer', 'name']);
  return {
    partner: text(partner),
    licenceId: text(firstPresent(licence ? [licence] : [], ['id', 'licenceId', 'licenseId']) ?? me.licenceId ?? me.licenseId),
    status: text(firstPresent(sources, ['status', 'state'])),
    sports: list(firstPresent(sources, ['sports', 'allowedSports', 'licensedSports'])),
    leagues: list(firstPresent(sources, ['leagues', 'allowedLeagues', 'licensedLeagues', 'competitions'])),
    from: text(firstPresent(windowSources, ['from', 'start', 'startDate', 'validFrom', 'dateFrom'])),
    to: text(firstPresent(windowSources, ['to', 'end', 'endDate', 'validTo', 'validUntil', 'dateTo'])),
    contentMode: text(firstPresent(sources, ['contentMode', 'content_mode', 'mode', 'tier'])),
    channels: list(firstPresent(sources, ['channels', 'channel', 'allowedChannels'])),
    expiresAt: text(firstPresent(sources, ['expiresAt', 'expiry', 'expires', 'expiresOn', 'validUntil', 'endsAt'])),
  };
}
