/**
 * The licence as the portal states it (spec §4's /me has no documented shape: lib/picks-api/licence.ts reads
 * it wherever it sits), and PICKS_ME_FIELDS, where an operator points at fields the search does not find.
 */

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

export type LicenceField = keyof LicenceSummary;
/** `licence` points at the licence object itself; the others at a summary field. */
export type MeFields = Partial<Record<LicenceField | 'licence', (string | number)[]>>;

const FIELD_NAMES = [
  'licence',
  'partner',
  'licenceId',
  'status',
  'sports',
  'leagues',
  'from',
  'to',
  'contentMode',
  'channels',
  'expiresAt',
] as const;

/**
 * PICKS_ME_FIELDS: `field:path` pairs separated by commas, a path being keys and list indices joined by
 * dots (`leagues:licences.0.scope.leagues,licence:data.licences.1`). Throws a message naming what is wrong.
 */
export function parseMeFields(value: string): MeFields {
  const fields: MeFields = {};
  for (const item of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [field, path, extra] = item.split(':').map((part) => part.trim());
    if (!field || !path || extra !== undefined)
      throw new Error(`has "${item}", which is not field:path (e.g. leagues:licence.scope.leagues)`);
    if (!(FIELD_NAMES as readonly string[]).includes(field))
      throw new Error(`has the unknown field "${field}" (known: ${FIELD_NAMES.join(', ')})`);
    if (field in fields) throw new Error(`names "${field}" twice`);
    const steps = path.split('.');
    if (steps.some((step) => !/^[\w$-]+$/.test(step)))
      throw new Error(`has the path "${path}", which is not keys and indices joined by dots`);
    fields[field as LicenceField] = steps.map((step) => (/^\d+$/.test(step) ? Number(step) : step));
  }
  return fields;
}
