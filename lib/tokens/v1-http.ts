import 'server-only';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientAddress } from '../auth/client-address';
import { requestContextSignal } from '../process-state';
import { serveV1, type V1Request } from './v1';

/**
 * API v1 on either server: scripts/portal-server.mjs hands its requests here before Next (ADR 0013: Next's
 * router costs a few milliseconds a request, more than the whole of the portal's own work on a page), and the
 * route handlers under app/api/v1 serve the same answers under any other server.
 */

/** For scripts/portal-server.mjs: answers a request whose path is under /api/v1. */
export async function serveV1OnNode(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers = req.headers;
  const request: V1Request = {
    url: new URL(req.url ?? '/', 'http://portal.invalid'),
    header: (name) => {
      const value = headers[name];
      return Array.isArray(value) ? value.join(', ') : (value ?? null);
    },
    signal: requestContextSignal(),
    address: clientAddress(headers),
  };
  const result = await serveV1(request, req.method ?? 'GET');
  res.writeHead(result.status, result.headers);
  res.end(req.method === 'HEAD' ? undefined : result.body);
}

/** For the route handlers under app/api/v1. */
export async function serveV1OnNext(request: Request): Promise<Response> {
  const result = await serveV1(
    {
      url: new URL(request.url),
      header: (name) => request.headers.get(name),
      signal: request.signal,
      address: clientAddress(request.headers),
    },
    request.method,
  );
  return new Response(request.method === 'HEAD' ? null : (result.body as BodyInit), { status: result.status, headers: result.headers });
}
