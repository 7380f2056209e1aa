import 'server-only';
import { recordAudit } from '../audit/record';
import { takeAction } from '../auth/action-rates';
import type { PortalSession } from '../auth/principal';
import { AppError, invalidFields } from '../errors';
import { readJsonObject } from '../net/json-body';
import { fromStore } from '../store';
import { getToken, rollToken } from '../store/tokens';
import { forgetTokens, newToken } from '../tokens/access';
import { suspendedBecause, visibleToken } from '../tokens/read';
import { tokenView } from '../tokens/view';

/**
 * POST /api/tokens/<id>/roll `{ "overlapHours": 0–168 }`: a new secret, shown once in the answer; the one it had
 * keeps working for the overlap its owner picks (0: refused at once), so a system is moved to the new one without
 * downtime. Whoever may manage the token may roll it (its owner, admins); a few a minute; audited `token.roll`.
 */

type User = PortalSession['user'];
export const MAX_OVERLAP_HOURS = 168;

const refuse = (details: Record<string, string>) => invalidFields('roll', details, 'INVALID_TOKEN');

export async function rollResponse(request: Request, user: User, id: string): Promise<Response> {
  const current = await visibleToken(user, id);
  if (!current) throw new AppError({ code: 'NOT_FOUND', message: 'There is no such token.' });
  if (current.revokedMs !== null) throw new AppError({ code: 'NOT_FOUND', message: 'This token was revoked; it cannot be rolled.' });
  const { overlapHours, ...rest } = await readJsonObject(request, 1_024, refuse);
  const problems: Record<string, string> = {};
  for (const key of Object.keys(rest)) problems[key.slice(0, 40)] = 'is not a setting of a roll (overlapHours)';
  if (typeof overlapHours !== 'number' || !Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > MAX_OVERLAP_HOURS)
    problems.overlapHours = `must be how many hours the old secret keeps working: a whole number from 0 (none) to ${MAX_OVERLAP_HOURS} (7 days)`;
  if (Object.keys(problems).length > 0) throw refuse(problems);
  await takeAction('token.roll', user.email, current.id);
  const hours = overlapHours as number;
  const secret = newToken();
  const now = Date.now();
  const until = hours > 0 ? now + hours * 3_600_000 : null;
  if (!(await fromStore((db) => rollToken(db, current.id, secret, until, now))))
    throw new AppError({ code: 'NOT_FOUND', message: 'This token was revoked; it cannot be rolled.' });
  forgetTokens();
  const rolled = (await fromStore((db) => getToken(db, current.id)))!;
  await recordAudit({
    actor: user.email,
    role: user.role,
    action: 'token.roll',
    target: `${rolled.name} (${rolled.id})`,
    filters: {
      from: `${current.prefix}…`,
      to: `${rolled.prefix}…`,
      overlap: hours > 0 ? `${hours} hours, until ${new Date(until!).toISOString()}` : 'none: the old secret is refused now',
    },
    outcome: 'complete',
  });
  return Response.json(
    { ...tokenView(rolled, undefined, await suspendedBecause(rolled), now), token: secret.token },
    { status: 201, headers: { 'Cache-Control': 'private, no-store' } },
  );
}
