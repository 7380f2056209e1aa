import 'server-only';
import { recordAudit } from '../audit/record';
import type { PortalSession } from '../auth/principal';
import { AppError, invalidFields } from '../errors';
import { readJsonObject } from '../net/json-body';
import { fromStore } from '../store';
import { readMeta, writeMeta } from '../store/meta';
import { checkCeilings, NO_CEILINGS, type TokenCeilings } from './scope';

/**
 * The most editors may give their own tokens (requests a minute, records a day), set by admins: GET (anyone who
 * may hold tokens, to know the bounds) and PUT (admins) /api/tokens/ceilings. Unset, only the portal's own bounds
 * hold. A token's limits are checked against them when an editor makes or changes it; admins are not bound.
 * Kept in the store, so every instance applies the same; each change is audited (token.ceilings).
 */

const KEY = 'token-ceilings';
type User = PortalSession['user'];

export async function readCeilings(): Promise<TokenCeilings> {
  const stored = await fromStore((db) => readMeta(db, KEY));
  if (!stored) return NO_CEILINGS;
  try {
    return { ...NO_CEILINGS, ...(JSON.parse(stored) as Partial<TokenCeilings>) };
  } catch {
    return NO_CEILINGS;
  }
}

/** The ceilings this person's tokens are held to: none for an admin. */
export const ceilingsFor = async (user: User): Promise<TokenCeilings | null> => (user.role === 'admin' ? null : readCeilings());

const json = (body: unknown) => Response.json(body, { headers: { 'Cache-Control': 'private, no-store' } });

export async function ceilingsResponse(request: Request, user: User): Promise<Response> {
  if (request.method === 'GET') return json(await readCeilings());
  if (user.role !== 'admin') throw new AppError({ code: 'FORBIDDEN', message: 'Only an admin may set the ceilings of editors’ tokens.' });
  const ceilings = checkCeilings(await readJsonObject(request, 1_024, (details) => invalidFields('ceilings', details, 'INVALID_TOKEN')));
  await fromStore((db) => writeMeta(db, KEY, JSON.stringify(ceilings)));
  await recordAudit({
    actor: user.email,
    role: user.role,
    action: 'token.ceilings',
    target: 'editors’ tokens',
    filters: { ratePerMinute: String(ceilings.ratePerMinute), dailyRecords: String(ceilings.dailyRecords) },
    outcome: 'complete',
  });
  return json(ceilings);
}
