import 'server-only';
import { z } from 'zod';
import { recordAudit } from '../audit/record';
import type { PortalSession } from '../auth/principal';
import { getConfig } from '../config';
import { AppError, toAppError, invalidFields } from '../errors';
import { fromStore } from '../store';
import { readCadences, setCadences } from '../store/feed-health';
import { feedPeriodMs, recentLicenceChanges, sportsHealth } from '../feed-health';
import { pollerAndUpstream } from '../feed-health/poller';
import { cadenceBody, cadencesAnswer, type FeedHealthAnswer } from '../feed-health/answers';
import { can } from '../vocabulary/roles';

/**
 * GET /api/feed-health: each sport's health (lib/feed-health). GET and PUT /api/feed-health/cadences: the
 * refresh cadence agreed with the provider per sport, which silence is judged against (admins set it).
 */

const json = (body: unknown) => Response.json(body, { headers: { 'Cache-Control': 'private, no-store' } });
const MAX_BODY = 8_192;

export async function feedHealthResponse(session: PortalSession): Promise<Response> {
  try {
    const config = getConfig();
    const pollMs = await fromStore((db) => feedPeriodMs(db, config.CHANGES_POLL_SECONDS > 0 ? config.CHANGES_POLL_SECONDS * 1000 : null));
    const [sports, { poller, upstream }, licenceChanges] = await fromStore((db) =>
      Promise.all([sportsHealth(db, pollMs), pollerAndUpstream(db, pollMs), recentLicenceChanges(db)]),
    );
    // Which instance polls is for whoever runs the instances (as on /health), not for reading the feed.
    const { leaseHolder, leaseExpiresAt, ...shared } = poller;
    const answer: FeedHealthAnswer = {
      sports,
      poller: can(session.user.role, 'poll') ? { ...shared, leaseHolder, leaseExpiresAt } : shared,
      upstream,
      licenceChanges,
      checkedAt: new Date().toISOString(),
    };
    return json(answer);
  } catch (error) {
    return toAppError(error).toResponse();
  }
}

const cadences = async (): Promise<z.infer<typeof cadencesAnswer>> => ({ cadences: await fromStore(readCadences) });

const invalid = (details: Record<string, string>) => invalidFields('cadences', details);

export async function cadencesResponse(request: Request, session: PortalSession): Promise<Response> {
  try {
    if (request.method === 'GET') return json(await cadences());
    const text = await request.text();
    if (text.length > MAX_BODY)
      throw new AppError({ code: 'PAYLOAD_TOO_LARGE', message: `A cadence change is at most ${MAX_BODY} bytes.` });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw invalid({ body: 'is not JSON' });
    }
    const parsed = cadenceBody.safeParse(body);
    if (!parsed.success) {
      throw invalid(Object.fromEntries(parsed.error.issues.map((issue) => [issue.path.join('.') || 'body', issue.message])));
    }
    await fromStore((db) => setCadences(db, parsed.data.cadences, session.user.email));
    await recordAudit({
      actor: session.user.email,
      role: session.user.role,
      action: 'feed.cadence',
      target: Object.keys(parsed.data.cadences).join(', ').slice(0, 200),
      filters: Object.fromEntries(
        Object.entries(parsed.data.cadences).map(([sport, seconds]) => [sport, seconds === null ? 'none' : String(seconds)]),
      ),
      outcome: 'complete',
    });
    return json(await cadences());
  } catch (error) {
    return toAppError(error).toResponse();
  }
}
