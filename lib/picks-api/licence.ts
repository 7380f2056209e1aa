/**
 * /me has no documented shape (spec §4). This reads the licence wherever it sits: it finds the licence
 * object (one object, or the active one of a list), then looks for each field by its common names, first in
 * the licence and what it holds (scope, terms, window…), then in the rest of the document, nearest first.
 * An operator who knows the upstream's shape can point at fields with PICKS_ME_FIELDS (parseMeFields);
 * what is found nowhere is "not stated" (null). Pure: no I/O.
 */

import { type LicenceField, type LicenceSummary, type MeFields } from '../vocabulary/licence';

type JsonObject = Record<string, unknown>;

const LIST_FIELDS = new Set<LicenceField>(['sports', 'leagues', 'channels']);
const WINDOW = ['dateWindow', 'window', 'dateRange', 'period', 'validity', 'term', 'dates'];
const NAMES: Record<Exclude<LicenceField, 'partner' | 'licenceId'>, string[]> = {
  status: ['status', 'state', 'licenceStatus', 'licenseStatus'],
  sports: ['sports', 'allowedSports', 'licensedSports', 'sport'],
  leagues: ['leagues', 'allowedLeagues', 'licensedLeagues', 'competitions', 'league'],
  from: ['from', 'start', 'startDate', 'startsAt', 'validFrom', 'dateFrom', 'effectiveFrom', 'notBefore'],
  to: ['to', 'end', 'endDate', 'endsAt', 'validTo', 'validUntil', 'dateTo', 'effectiveTo'],
  contentMode: ['contentMode', 'mode', 'tier', 'contentTier', 'accessLevel'],
  channels: ['channels', 'channel', 'allowedChannels', 'distributionChannels'],
  expiresAt: ['expiresAt', 'expiry', 'expires', 'expiresOn', 'expiryDate', 'expirationDate', 'validUntil', 'endsAt'],
};
const LICENCE_KEYS = [
  'licence',
  'license',
  'activeLicence',
  'activeLicense',
  'licences',
  'licenses',
  'subscription',
  'subscriptions',
  'contract',
  'contracts',
  'entitlement',
  'entitlements',
  'plan',
];
const LICENCE_ID = [
  'id',
  'licenceId',
  'licenseId',
  'reference',
  'ref',
  'licenceRef',
  'licenseRef',
  'licenceReference',
  'licenseReference',
  'number',
  'code',
];
const TOP_LICENCE_ID = ['licenceId', 'licenseId', 'licenceReference', 'licenseReference', 'licenceRef', 'licenseRef'];
const PARTNER = ['partner', 'partnerName', 'organisation', 'organization', 'customer', 'company', 'account', 'client', 'name'];
// The partner is named at the top, or one level down in an envelope ({ data: { partner } }).
const WRAPPERS = ['data', 'result', 'me', 'body', 'profile'];
const MAX_DEPTH = 8;
const MAX_NODES = 5000;

const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Names compare without case, `_` or `-`: content_mode, ContentMode and contentMode are one name. */
const norm = (name: string) => name.replace(/[_-]/g, '').toLowerCase();
const present = (value: unknown) => value !== undefined && value !== null && value !== '';

function text(value: unknown): string | null {
  if (typeof value === 'string' && value.trim()) return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  // An object names itself, or holds what does ({ account: { partner: { name } } }).
  if (isJsonObject(value))
    return text(
      value.name ??
        value.label ??
        value.reference ??
        value.id ??
        value.partner ??
        value.organisation ??
        value.organization ??
        value.company,
    );
  return null;
}

function list(value: unknown): string[] | null {
  if (typeof value === 'string')
    return value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  if (isJsonObject(value)) return list(value.names ?? value.items ?? value.list ?? value.name);
  if (!Array.isArray(value)) return null;
  const names = value
    .map((item) => text(isJsonObject(item) ? (item.name ?? item.league ?? item.sport ?? item.label ?? item.id) : item))
    .filter((v): v is string => v !== null);
  return [...new Set(names)];
}

/** The value at a path of keys and indices, or undefined. */
export function atPath(root: unknown, path: (string | number)[]): unknown {
  let node = root;
  for (const step of path) {
    if (Array.isArray(node) && typeof step === 'number') node = node[step];
    else if (isJsonObject(node) && typeof step === 'string') node = node[step];
    else if (isJsonObject(node)) node = node[String(step)];
    else return undefined;
  }
  return node;
}

const ACTIVE_WORDS = new Set(['active', 'current', 'valid', 'live', 'enabled']);
/** How strongly an entry of a list of licences says it is the one in force. */
function activeness(entry: JsonObject): number {
  for (const [key, value] of Object.entries(entry)) {
    const k = norm(key);
    if ((k === 'active' || k === 'isactive' || k === 'current' || k === 'iscurrent' || k === 'primary') && value === true) return 2;
    if ((k === 'status' || k === 'state') && typeof value === 'string' && ACTIVE_WORDS.has(value.toLowerCase())) return 1;
  }
  return 0;
}

/** The licence object: under a licence-like key (the active entry of a list), nearest the top first. */
function findLicence(me: JsonObject): { licence: JsonObject | null; others: Set<unknown> } {
  const wanted = new Set(LICENCE_KEYS.map(norm));
  let level: JsonObject[] = [me];
  for (let depth = 0; depth < 3 && level.length; depth += 1) {
    const next: JsonObject[] = [];
    for (const node of level) {
      for (const [key, value] of Object.entries(node)) {
        if (wanted.has(norm(key))) {
          if (isJsonObject(value)) return { licence: value, others: new Set() };
          if (Array.isArray(value)) {
            const entries = value.filter(isJsonObject);
            if (entries.length === 0) continue;
            const best = entries.reduce((a, b) => (activeness(b) > activeness(a) ? b : a));
            return { licence: best, others: new Set(entries.filter((e) => e !== best)) };
          }
        }
        if (isJsonObject(value)) next.push(value);
      }
    }
    level = next;
  }
  return { licence: null, others: new Set() };
}

/**
 * Breadth-first search below `root` for the first level holding any of the names; at that level a list field
 * gathers every match (sports: [{ leagues }, { leagues }]), a single field takes the first. `skip` holds
 * subtrees not to enter (the licences that are not in force).
 */
function search(root: unknown, names: string[], skip: Set<unknown>, many: boolean): unknown[] {
  const wanted = new Set(names.map(norm));
  let level: unknown[] = [root];
  let visited = 0;
  for (let depth = 0; depth < MAX_DEPTH && level.length; depth += 1) {
    const found: unknown[] = [];
    const next: unknown[] = [];
    for (const node of level) {
      if (skip.has(node) || (visited += 1) > MAX_NODES) continue;
      if (Array.isArray(node)) next.push(...node.filter((item) => typeof item === 'object' && item !== null));
      else if (isJsonObject(node)) {
        const hit = firstKey(node, names); // names in the order given: the more specific wins within one object
        if (hit !== undefined) found.push(hit);
        for (const [key, value] of Object.entries(node)) if (!wanted.has(norm(key)) && typeof value === 'object' && value) next.push(value);
      }
    }
    if (found.length) return many ? found : found.slice(0, 1);
    level = next;
  }
  return [];
}

function listOf(values: unknown[]): string[] | null {
  const lists = values.map(list).filter((v): v is string[] => v !== null);
  return lists.length ? [...new Set(lists.flat())] : null;
}

export function summariseLicence(me: JsonObject, fields: MeFields = {}): LicenceSummary {
  const pointed = fields.licence ? atPath(me, fields.licence) : undefined;
  const found = isJsonObject(pointed) ? { licence: pointed, others: new Set<unknown>() } : findLicence(me);
  const { licence, others } = found;
  const roots = licence ? [licence, me] : [me];

  const lookup = (field: LicenceField, names: string[], within: unknown[] = roots): unknown[] => {
    const path = fields[field];
    if (path) return [atPath(me, path)].filter(present);
    for (const root of within) {
      const hits = search(root, names, others, LIST_FIELDS.has(field));
      if (hits.length) return hits;
    }
    return [];
  };
  const one = (field: LicenceField, names: string[], within?: unknown[]) => text(lookup(field, names, within)[0]);
  const many = (field: Extract<LicenceField, 'sports' | 'leagues' | 'channels'>) => listOf(lookup(field, NAMES[field]));
  // Dates of the window: inside a window object when there is one, else anywhere the names say so.
  const windows = roots.flatMap((root) => search(root, WINDOW, others, false)).filter(isJsonObject);
  const dated = (field: 'from' | 'to') => one(field, NAMES[field], [...windows, ...roots]);

  return {
    partner: fields.partner
      ? one('partner', [])
      : text(
          firstKey(me, PARTNER) ??
            WRAPPERS.map((key) => me[key])
              .filter(isJsonObject)
              .map((inner) => firstKey(inner, PARTNER))
              .find(present),
        ),
    licenceId: fields.licenceId
      ? one('licenceId', [])
      : ((licence ? text(firstKey(licence, LICENCE_ID)) : null) ?? text(search(me, TOP_LICENCE_ID, others, false)[0])),
    status: one('status', NAMES.status),
    sports: many('sports'),
    leagues: many('leagues'),
    from: dated('from'),
    to: dated('to'),
    contentMode: one('contentMode', NAMES.contentMode),
    channels: many('channels'),
    expiresAt: one('expiresAt', NAMES.expiresAt, [...roots, ...windows]),
  };
}

/** The first of the names an object holds (in the names' order). */
function firstKey(node: JsonObject, names: string[]): unknown {
  for (const name of names) {
    const key = Object.keys(node).find((k) => norm(k) === norm(name) && present(node[k]));
    if (key) return node[key];
  }
  return undefined;
}
