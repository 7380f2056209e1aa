import 'server-only';
import { z } from 'zod';
import type { PortalSession } from '../auth/principal';
import { takeAction } from '../auth/action-rates';
import { toAppError } from '../errors';
import { parseStrictQuery } from '../strict-query';
import type { FindAnswer } from '../find/answers';
import { FIND_MAX_CHARS, findAnything } from '../find/find';

const findQuery = z.strictObject({
  q: z.string({ error: 'is needed: the words to find' }).max(FIND_MAX_CHARS, `must be at most ${FIND_MAX_CHARS} characters`),
});

/**
 * GET /api/find?q=: what the signed-in person may open whose name holds the words (the command palette asks as
 * they type). Counted per person (lib/auth/action-rates.ts): a palette held down cannot turn into a flood.
 */
export async function findResponse(request: Request, user: PortalSession['user']): Promise<Response> {
  try {
    const { q } = parseStrictQuery(findQuery, new URL(request.url).searchParams, { title: 'search', of: 'the finder' });
    await takeAction('find', user.email, user.email);
    const answer: FindAnswer = await findAnything(user, q);
    return Response.json(answer, { headers: { 'Cache-Control': 'private, no-store' } });
  } catch (error) {
    return toAppError(error).toResponse();
  }
}
