import 'server-only';
import { randomBytes } from 'node:crypto';
import { getConfig, portalOrigin } from '../config';
import { currentRequestId } from '../log/request';
import { picksApi } from '../picks-api';
import { getRecentHealth, getRecentLicence } from '../picks-api/portal';
import type { ApiToken } from '../store/tokens';
import { authenticate, presentedPrefix, triedToken } from '../tokens/access';
import { limitsOf, reserveRecords, takeRequest } from '../tokens/limits';
import { listAnswer } from './list';
import { searchAnswer } from './search';
import { inScope, projectRecord, withheldFields, type Content } from '../tokens/scope';
import { countUse } from '../tokens/usage';
import { toV1Error, V1_HEADERS, v1ErrorBody } from './errors';
import { V1Error } from '../tokens/refusal';
import type { V1Health, V1Me } from './shapes';
import { v1Document } from './openapi';
import { eventsPageAnswer } from './events-page';
import { checkpointsAnswer, receiptAnswer } from './events-receipt';

/**
 * The portal's API v1 for the partner's systems (docs/api-v1.md): GET /api/v1/me, /picks, /picks/<id>,
 * /results, /health and /events (JSON pages; the stream is lib/api-v1/events-http.ts), answered for `Authorization: Bearer <token>` as the spec describes the upstream —
 * same envelope, filters, paging, error body and codes, private non-cacheable answers — inside the token's
 * scope. Every answer is counted to the token's use. Served by scripts/portal-server.mjs before Next (ADR
 * 0013; lib/api-v1/http.ts), and by the route handlers under app/api/v1 under any other server.
 */

import type { V1Request, V1Result } from './request';

export type { V1Request, V1Result };

interface Call {
  request: V1Request;
  token: ApiToken;
  requestId: string;
}

type Answer = { body: string | Uint8Array; records: number };

const newRequestId = () => `req_${currentRequestId() ?? randomBytes(8).toString('hex')}`;

/** The token, its rate, the answer or the error, and the count of its use. */
async function answer(request: V1Request, method: string, work: (call: Call) => Promise<Answer>): Promise<V1Result> {
  const startedAt = performance.now();
  const requestId = newRequestId();
  let token: ApiToken | null = null;
  let result: V1Result;
  let records = 0;
  try {
    if (request.actor) token = request.actor;
    else {
      token = request.tried
        ? await triedToken(request.tried)
        : await authenticate(request.header('authorization'), request.header('cookie') !== null);
      await takeRequest(token);
    }
    const done = await work({ request, token, requestId });
    records = done.records;
    result = { status: 200, headers: { ...V1_HEADERS, 'X-Request-Id': requestId }, body: done.body };
  } catch (error) {
    const refused = toV1Error(error);
    if (refused.status >= 500 && refused.code === 'INTERNAL') console.error('[portal] API v1 request failed:', error);
    result = v1ErrorBody(refused, requestId);
  }
  if (token) {
    const bytes = typeof result.body === 'string' ? Buffer.byteLength(result.body) : result.body.byteLength;
    countUse(token.id, {
      status: result.status,
      records,
      bytes,
      address: request.address,
      request: {
        // A tool call of the MCP server reads through here: its log line says so.
        method: request.actor ? 'MCP' : method,
        prefix: presentedPrefix(token),
        path: `${request.url.pathname}${request.url.search}`,
        durationMs: Math.round(performance.now() - startedAt),
        requestId,
      },
    });
  }
  return result;
}

const needs = (token: ApiToken, content: Content) => {
  if (!token.scope.content.includes(content)) throw new V1Error(403, 'OUT_OF_SCOPE', `This token may not read ${content}.`);
};

/** Which endpoint a path is: null when it is none of API v1's. */
export function v1Endpoint(
  pathname: string,
): { name: 'me' | 'health' | 'picks' | 'results' | 'events' | 'receipt' | 'checkpoints' | 'search' } | { name: 'pick'; id: string } | null {
  const fixed = {
    '/api/v1/me': 'me',
    '/api/v1/health': 'health',
    '/api/v1/picks': 'picks',
    '/api/v1/results': 'results',
    '/api/v1/events': 'events',
    '/api/v1/events/receipt': 'receipt',
    '/api/v1/events/checkpoints': 'checkpoints',
    '/api/v1/search': 'search',
  } as const;
  if (pathname in fixed) return { name: fixed[pathname as keyof typeof fixed] };
  const pick = /^\/api\/v1\/picks\/([^/]+)$/.exec(pathname);
  if (!pick) return null;
  try {
    return { name: 'pick', id: decodeURIComponent(pick[1]!) };
  } catch {
    return null;
  }
}

/** Answers one request to API v1 (any method: anything but GET or HEAD is 405, as the upstream answers). */
export async function serveV1(request: V1Request, method: string): Promise<V1Result> {
  const endpoint = v1Endpoint(request.url.pathname);
  const requestId = newRequestId();
  if (request.url.pathname === '/api/v1/openapi.json' && (method === 'GET' || method === 'HEAD')) return openapiAnswer();
  if (!endpoint) return v1ErrorBody(new V1Error(404, 'NOT_FOUND', 'No such endpoint.'), requestId);
  if (method !== 'GET' && method !== 'HEAD') {
    const refused = v1ErrorBody(new V1Error(405, 'METHOD_NOT_ALLOWED', 'Only GET is supported.'), requestId);
    return { ...refused, headers: { ...refused.headers, Allow: 'GET' } };
  }
  switch (endpoint.name) {
    case 'picks':
    case 'results': {
      const kind = endpoint.name;
      return answer(request, method, ({ token, requestId: id }) => {
        needs(token, kind);
        return listAnswer(request, token, kind, id, cursorSecret());
      });
    }
    case 'pick':
      return answer(request, method, (call) => pickAnswer(call, endpoint.id));
    case 'me':
      return answer(request, method, meAnswer);
    case 'health':
      return answer(request, method, healthAnswer);
    case 'events':
      return answer(request, method, ({ token, requestId: id }) => eventsPageAnswer(request, token, id));
    case 'receipt':
      return answer(request, method, ({ token, requestId: id }) => receiptAnswer(request, token, id));
    case 'checkpoints':
      return answer(request, method, ({ token, requestId: id }) => checkpointsAnswer(request, token, id));
    case 'search':
      return answer(request, method, ({ token, requestId: id }) => searchAnswer(request, token, id));
  }
}

async function pickAnswer({ request, token, requestId }: Call, id: string): Promise<Answer> {
  needs(token, 'picks');
  const reserved = await reserveRecords(token, 1);
  let served = 0;
  try {
    const pick = await picksApi().getPick(id, { signal: request.signal, priority: 'consumer' });
    // A record outside the token's scope is, for this token, a record that does not exist.
    if (!inScope(pick, token.scope)) throw new V1Error(404, 'NOT_FOUND', 'No pick has that id.');
    served = 1;
    return { body: JSON.stringify({ data: projectRecord(pick, withheldFields(token.scope)), requestId }), records: 1 };
  } finally {
    await reserved.settle(served);
  }
}

/** The token's scope in the shape of the upstream's /me: what this consumer may read, not the whole licence. */
async function meAnswer({ token, requestId }: Call): Promise<Answer> {
  const licence = await getRecentLicence();
  if (!licence.ok) throw licence.error;
  const summary = licence.value.summary;
  const { scope } = token;
  const licenceEnds = summary.expiresAt ? Date.parse(summary.expiresAt) : Number.NaN;
  const ends = Number.isNaN(licenceEnds) ? token.expiresMs : Math.min(licenceEnds, token.expiresMs);
  const from = scope.from ?? summary.from;
  const to = scope.to ?? summary.to;
  const body: V1Me = {
    partner: { name: summary.partner },
    licence: {
      id: summary.licenceId,
      status: summary.status,
      sports: scope.sports.length > 0 ? scope.sports : summary.sports,
      leagues: scope.leagues.length > 0 ? scope.leagues : summary.leagues,
      dateWindow: from || to ? { from, to } : null,
      contentMode: summary.contentMode,
      channels: summary.channels,
      content: scope.content,
      expiresAt: new Date(ends).toISOString(),
    },
    token: {
      id: token.id,
      name: token.name,
      expiresAt: new Date(token.expiresMs).toISOString(),
      ...(await limitsOf(token)),
    },
    requestId,
  };
  return { body: JSON.stringify(body), records: 0 };
}

/** The gateway's availability, no private data: the portal answers, and says whether the upstream does. */
async function healthAnswer({ requestId }: Call): Promise<Answer> {
  const upstream = await getRecentHealth().health;
  if (!upstream.ok) throw new V1Error(503, 'UNAVAILABLE', 'The data source is unavailable. Try again shortly.', 30);
  const body: V1Health = { status: 'ok', service: 'picks-partner-portal', version: 'v1', time: new Date().toISOString(), requestId };
  return { body: JSON.stringify(body), records: 0 };
}

/** The OpenAPI document of API v1 (lib/api-v1/openapi.ts): no token needed, it holds no data; made once a process. */
function openapiAnswer(): V1Result {
  openapiText ??= JSON.stringify(v1Document(portalOrigin(getConfig())));
  return {
    status: 200,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'public, max-age=300',
      'X-Content-Type-Options': 'nosniff',
    },
    body: openapiText,
  };
}
let openapiText: string | undefined;

function cursorSecret(): string {
  const config = getConfig();
  const secret = config.AUTH_SECRET ?? config.NEXTAUTH_SECRET;
  if (secret) return secret;
  // Development without a session secret: cursors hold within this process only.
  return (processSecret ??= randomBytes(32).toString('hex'));
}
let processSecret: string | undefined;
