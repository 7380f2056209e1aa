import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Request bodies are refused past a size limit before the portal reads them: by Content-Length at once,
 * and by counting bytes as they arrive for a body without one (chunked). Over the limit, the answer is 413
 * with the limit in the message and the connection is closed; the handler already reading the body never
 * sees its end, so nothing truncated is taken for whole.
 */

export function tooLargeMessage(maxBytes: number): string {
  return `The request body is larger than the portal accepts (${Math.round(maxBytes / 1024)} KB).`;
}

function refuse(res: ServerResponse, maxBytes: number) {
  if (!res.headersSent) {
    const portalRequestId = res.getHeader('x-request-id') ?? null;
    const body = JSON.stringify({
      error: { status: 413, code: 'PAYLOAD_TOO_LARGE', message: tooLargeMessage(maxBytes), requestId: null, portalRequestId },
    });
    res.writeHead(413, {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
      Connection: 'close',
    });
    res.end(body);
  }
  res.once('finish', () => res.socket?.destroy());
  setTimeout(() => res.socket?.destroy(), 1_000).unref();
}

/** true: refused here (answered); false: the request goes on, its body counted as it arrives. */
export function limitBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): boolean {
  const declared = req.headers['content-length'];
  if (declared !== undefined) {
    if (!/^\d+$/.test(declared) || Number(declared) > maxBytes) {
      refuse(res, maxBytes);
      req.resume(); // drain nothing further than the socket already holds; the connection closes
      return true;
    }
    return false; // Node's parser never delivers more than Content-Length
  }
  if (req.headers['transfer-encoding'] === undefined) return false; // no body
  let seen = 0;
  let over = false;
  const push = req.push.bind(req);
  // Node's HTTP parser hands each chunk of the body to the request's push(): counted here before anyone reads it.
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (over) return false;
    if (chunk !== null && chunk !== undefined) {
      seen += (chunk as Buffer).length;
      if (seen > maxBytes) {
        over = true;
        refuse(res, maxBytes);
        return false;
      }
    }
    return push(chunk, encoding);
  };
  return false;
}
