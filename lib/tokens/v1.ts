import 'server-only';
import { randomBytes } from 'node:crypto';
import { clientAddress } from '../auth/client-address';
import { getConfig } from '../config';
import { currentRequestId } from '../log/request';
import { picksApi } from '../picks-api';
import { getRecentHealth, getRecentLicence } from '../picks-api/portal';
import type { ApiToken } from '../store/tokens';
import { authenticate } from './access';
import { takeRequest, reserveRecords } from './limits';
import { listAnswer } from './v1-list';
import { inScope, type Content } from './scope';
import { countUse } from './usage';
import { toV1Error, V1Error, V1_HEADERS, v1ErrorResponse } from './v1-errors';

/**
 * The portal's API v1 for the partner's systems (docs/api-v1.md): GET /api/v1/me, /picks, /picks/<id>,
 * /results and /health, answered for `Authorization: Bearer <token>` as the spec describes the upstream —
 * same envelope, filters, paging, error body and codes, private non-cacheable answers — inside the token's
 * scope. Every answer is counted to the token's use.
 */

export interface V1Call {
  request: Request;
  token: ApiToken;
  requestId: string;
}

export type V1Answer = { body: string | Uint8Array; records: number; status?: number };

const newRequestId = () => `req_${currentRequestId() ?? randomBytes(8).toString('hex')}`;

/** Wraps an endpoint: the token, its rate, the answer or the error, and the count of its use. */
export function v1Route(work: (call: V1Call) => Promise<V1Answer>) {
  return async (request: Request): Promise<Response> => {
    const requestId = newRequestId();
    let token: ApiToken | null = null;
    let response: Response;
    let records = 0;
    let bytes = 0;
    try {
      token = await authenticate(request);
      await takeRequest(token);
      const answer = await work({ request, token, requestId });
      records = answer.records;
      bytes = typeof answer.body === 'string' ? Buffer.byteLength(answer.body) : answer.body.byteLength;
      response = new Response(answer.body as BodyInit, {
        status: answer.status ?? 200,
        headers: { ...V1_HEADERS, 'X-Request-Id': requestId },
      });
    } catch (error) {
      const refused = toV1Error(error);
      if (refused.status >= 500 && refused.code === 'INTERNAL') console.error('[portal] API v1 request failed:', error);
      response = v1ErrorResponse(refused, requestId);
    }
    if (token) countUse(token.id, { status: response.status, records, bytes, address: clientAddress(request.headers) });
    return response;
  };
}

const needs = (token: ApiToken, content: Content) => {
  if (!token.scope.content.includes(content)) throw new V1Error(403, 'OUT_OF_SCOPE', `This token may not read ${content}.`);
};

export const listRoute = (endpoint: 'picks' | 'results') =>
  v1Route(async ({ request, token, requestId }) => {
    needs(token, endpoint);
    return listAnswer(request, token, endpoint, requestId, cursorSecret());
  });

export const pickRoute = (id: string) =>
  v1Route(async ({ request, token, requestId }) => {
    needs(token, 'picks');
    const reserved = await reserveRecords(token, 1);
    let served = 0;
    try {
      const pick = await picksApi().getPick(id, { signal: request.signal, priority: 'consumer' });
      // A record outside the token's scope is, for this token, a record that does not exist.
      if (!inScope(pick, token.scope)) throw new V1Error(404, 'NOT_FOUND', 'No pick has that id.');
      served = 1;
      return { body: JSON.stringify({ data: pick, requestId }), records: 1 };
    } finally {
      await reserved.settle(served);
    }
  });

/** The token's scope in the shape of the upstream's /me: what this consumer may read, not the whole licence. */
export const meRoute = () =>
  v1Route(async ({ token, requestId }) => {
    const licence = await getRecentLicence();
    if (!licence.ok) throw licence.error;
    const summary = licence.value.summary;
    const { scope } = token;
    const licenceEnds = summary.expiresAt ? Date.parse(summary.expiresAt) : Number.NaN;
    const ends = Number.isNaN(licenceEnds) ? token.expiresMs : Math.min(licenceEnds, token.expiresMs);
    const from = scope.from ?? summary.from;
    const to = scope.to ?? summary.to;
    const body = {
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
        ratePerMinute: token.ratePerMinute,
        dailyRecords: token.dailyRecords,
      },
      requestId,
    };
    return { body: JSON.stringify(body), records: 0 };
  });

/** The gateway's availability, no private data: the portal answers, and says whether the upstream does. */
export const healthRoute = () =>
  v1Route(async ({ requestId }) => {
    const upstream = await getRecentHealth().health;
    const ok = upstream.ok;
    if (!ok) throw new V1Error(503, 'UNAVAILABLE', 'The data source is unavailable. Try again shortly.', 30);
    return {
      body: JSON.stringify({ status: 'ok', service: 'picks-partner-portal', version: 'v1', time: new Date().toISOString(), requestId }),
      records: 0,
    };
  });

function cursorSecret(): string {
  const config = getConfig();
  const secret = config.AUTH_SECRET ?? config.NEXTAUTH_SECRET;
  if (secret) return secret;
  // Development without a session secret: cursors hold within this process only.
  return (processSecret ??= randomBytes(32).toString('hex'));
}
let processSecret: string | undefined;
