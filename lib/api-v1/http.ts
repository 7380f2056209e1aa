import 'server-only';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientAddress } from '../auth/client-address';
import { requestContext, requestContextSignal } from '../process-state';
import { serveV1, type V1Request } from './router';
import { wantsStream } from './events-query';
import { serveEventStream } from './events-http';

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
  if (request.url.pathname === '/api/v1/events' && req.method === 'GET' && wantsStream(request))
    return serveEventStreamOnNode(request, res);
  const result = await serveV1(request, req.method ?? 'GET');
  res.writeHead(result.status, result.headers);
  res.end(req.method === 'HEAD' ? undefined : result.body);
}

/** The event stream on Node's response: each write waits for the consumer to take it (backpressure), for a bounded time. */
async function serveEventStreamOnNode(request: V1Request, res: ServerResponse): Promise<void> {
  const context = requestContext();
  if (context) context.streamed = true;
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  await serveEventStream(request, gone.signal, {
    refuse: (result) => void res.writeHead(result.status, result.headers).end(result.body),
    start: (headers) => {
      res.writeHead(200, headers);
      res.flushHeaders();
    },
    write: (text, waitMs) =>
      new Promise<boolean>((resolve) => {
        if (res.destroyed || gone.signal.aborted) return resolve(false);
        if (res.write(text)) return resolve(true);
        const done = (ok: boolean) => {
          clearTimeout(timer);
          res.off('drain', drained);
          gone.signal.removeEventListener('abort', cut);
          resolve(ok);
        };
        const drained = () => done(true);
        const cut = () => done(false);
        const timer = setTimeout(() => {
          res.destroy();
          done(false);
        }, waitMs);
        res.once('drain', drained);
        gone.signal.addEventListener('abort', cut, { once: true });
      }),
    end: () => res.end(),
  });
}

/** For the route handlers under app/api/v1. */
export async function serveV1OnNext(request: Request): Promise<Response> {
  const v1: V1Request = {
    url: new URL(request.url),
    header: (name) => request.headers.get(name),
    signal: request.signal,
    address: clientAddress(request.headers),
  };
  if (v1.url.pathname === '/api/v1/events' && request.method === 'GET' && wantsStream(v1)) return eventStreamResponse(v1, request.signal);
  const result = await serveV1(v1, request.method);
  return new Response(request.method === 'HEAD' ? null : (result.body as BodyInit), { status: result.status, headers: result.headers });
}

/** The event stream as a web Response (the route handler under another server). */
function eventStreamResponse(request: V1Request, signal: AbortSignal): Promise<Response> {
  return new Promise<Response>((resolve) => {
    const encoder = new TextEncoder();
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(undefined, undefined, { highWaterMark: 16 });
    const writer = writable.getWriter();
    void serveEventStream(request, signal, {
      refuse: (result) => resolve(new Response(result.body as BodyInit, { status: result.status, headers: result.headers })),
      start: (headers) => resolve(new Response(readable, { status: 200, headers })),
      write: async (text, waitMs) => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<boolean>((done) => (timer = setTimeout(() => done(false), waitMs)));
        const taken = writer.write(typeof text === 'string' ? encoder.encode(text) : text).then(
          () => true,
          () => false,
        );
        const ok = await Promise.race([taken, late]);
        clearTimeout(timer);
        return ok && !signal.aborted;
      },
      end: () => void writer.close().catch(() => undefined),
    });
  });
}
