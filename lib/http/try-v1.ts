import 'server-only';
import { clientAddress } from '../auth/client-address';
import type { PortalSession } from '../auth/principal';
import { AppError, invalidFields } from '../errors';
import { visibleToken } from '../tokens/read';
import { serveV1, v1Endpoint, type V1Request } from '../api-v1/router';

/**
 * The API reference's Try with one of the signed-in person's own tokens (GET /api/developers/try/<token id>?url=…):
 * the portal keeps only a hash of a token, so the page cannot send it; this asks API v1 as that token instead, held
 * to the same rule as a token presented in Authorization (lib/tokens/access.ts `triedToken`), counted to its use and
 * limits like any request of it. Only its owner may — admins included: another person's token is not theirs to try.
 * The page's own header must be there, so that a link or a form elsewhere cannot make the browser try anything.
 */

type User = PortalSession['user'];
const MAX_URL = 4_096;

export async function tryResponse(request: Request, user: User, tokenId: string): Promise<Response> {
  if (request.headers.get('x-portal-try') !== '1')
    throw new AppError({
      code: 'FORBIDDEN',
      message: 'A request is tried from the API reference (/developers), which says so in X-Portal-Try.',
    });
  const token = await visibleToken(user, tokenId);
  if (!token || token.owner !== user.email)
    throw new AppError({ code: 'NOT_FOUND', message: 'You have no token with that id: requests are tried with one of your own tokens.' });
  const asked = new URL(request.url).searchParams.get('url') ?? '';
  const url = asked.length <= MAX_URL && asked.startsWith('/api/v1/') ? new URL(asked, 'http://portal.invalid') : null;
  if (!url || !v1Endpoint(url.pathname))
    throw invalidFields(
      'try',
      { url: 'must be the path of an API v1 endpoint with its query, such as /api/v1/picks?limit=5' },
      'INVALID_TRY',
    );
  const v1: V1Request = {
    url,
    // The session's cookie and any Authorization stay here: the token acting is the one checked above.
    header: (name) => (name === 'authorization' || name === 'cookie' ? null : request.headers.get(name)),
    signal: request.signal,
    address: clientAddress(request.headers),
    tried: token.id,
  };
  const result = await serveV1(v1, 'GET');
  return new Response(result.body as BodyInit, { status: result.status, headers: result.headers });
}
