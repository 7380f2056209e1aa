/**
 * /me has no documented shape (spec §4). This reads the licence fields people look for under the names
 * APIs commonly use, and says "not stated" (null) for whatever it cannot find. Pure: no I/O.
 */

type Obj = Record<string, unknown>;

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

const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

function pick(sources: Obj[], names: string[]): unknown {
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
  if (isObj(value)) return text(value.name ?? value.label ?? value.id);
  return null;
}

function list(value: unknown): string[] | null {
  if (typeof value === 'string') return value.split(',').map((v) => v.trim()).filter(Boolean);
  if (!Array.isArray(value)) return null;
  const names = value.map((item) => text(isObj(item) ? (item.name ?? item.league ?? item.sport ?? item.label ?? item.id) : item)).filter((v): v is string => v !== null);
  return [...new Set(names)];
}

export function summariseLicence(me: Obj): LicenceSummary {
  const licence = [me.licence, me.license, me.activeLicence, me.activeLicense].find(isObj);
  const sources = licence ? [licence, me] : [me];
  const window = pick(sources, ['dateWindow', 'window', 'dateRange', 'period', 'validity']);
  const windowSources = isObj(window) ? [window, ...sources] : sources;
  const partner = pick([me], ['partner', 'partnerName', 'organisation', 'organization', 'customer', 'name']);
  return {
    partner: text(partner),
    licenceId: text(pick(licence ? [licence] : [], ['id', 'licenceId', 'licenseId']) ?? me.licenceId ?? me.licenseId),
    status: text(pick(sources, ['status', 'state'])),
    sports: list(pick(sources, ['sports', 'allowedSports', 'licensedSports'])),
    leagues: list(pick(sources, ['leagues', 'allowedLeagues', 'licensedLeagues', 'competitions'])),
    from: text(pick(windowSources, ['from', 'start', 'startDate', 'validFrom', 'dateFrom'])),
    to: text(pick(windowSources, ['to', 'end', 'endDate', 'validTo', 'validUntil', 'dateTo'])),
    contentMode: text(pick(sources, ['contentMode', 'content_mode', 'mode', 'tier'])),
    channels: list(pick(sources, ['channels', 'channel', 'allowedChannels'])),
    expiresAt: text(pick(sources, ['expiresAt', 'expiry', 'expires', 'expiresOn', 'validUntil', 'endsAt'])),
  };
}
