import 'server-only';
import { randomBytes } from 'node:crypto';
import { currentRequestId } from '../log/request';
import type { ApiToken } from '../store/tokens';
import { presentedPrefix, authenticate } from '../tokens/access';
import { countUse } from '../tokens/usage';
import { toV1Error, v1ErrorBody } from './errors';
import type { V1Request, V1Result } from './request';
import { openEventStream, SSE_HEADERS, WRITE_WAIT_MS } from './events-stream';

/** What a server gives the event stream: refuse with an answer, or start and write, whichever server it is. */
export interface StreamIo {
  refuse(result: V1Result): void;
  start(headers: Record<string, string>): void;
  /** Resolves true once the consumer took the text, false when it is gone or did not read within `waitMs`. */
  write(text: string | Uint8Array, waitMs: number): Promise<boolean>;
  end(): void;
}

/** GET /api/v1/events with `Accept: text/event-stream`: refused as any API v1 request is, or streamed; counted to the token's use. */
export async function serveEventStream(request: V1Request, signal: AbortSignal, io: StreamIo): Promise<void> {
  const requestId = `req_${currentRequestId() ?? randomBytes(8).toString('hex')}`;
  const startedAt = performance.now();
  // The token's request log: the stream is one request, as long as it stayed open.
  const logged = (by: ApiToken) => ({
    prefix: presentedPrefix(by),
    method: 'GET',
    path: `${request.url.pathname}${request.url.search} (stream)`,
    durationMs: Math.round(performance.now() - startedAt),
    requestId,
  });
  let token: ApiToken | null = null;
  let opened: Awaited<ReturnType<typeof openEventStream>>;
  try {
    token = await authenticate(request.header('authorization'), request.header('cookie') !== null);
    opened = await openEventStream(request, token);
  } catch (error) {
    const refused = v1ErrorBody(toV1Error(error), requestId);
    io.refuse(refused);
    if (token)
      countUse(token.id, {
        status: refused.status,
        records: 0,
        bytes: Buffer.byteLength(refused.body),
        address: request.address,
        request: logged(token),
      });
    return;
  }
  io.start({ ...SSE_HEADERS, 'X-Request-Id': requestId });
  let done = { events: 0, bytes: 0 };
  try {
    done = await opened.run({ write: (text) => io.write(text, WRITE_WAIT_MS), signal });
  } finally {
    io.end();
    countUse(token.id, { status: 200, records: done.events, bytes: done.bytes, address: request.address, request: logged(token) });
  }
}
