import 'server-only';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { clientAddress } from '../auth/client-address';
import { toV1Error } from '../api-v1/errors';
import { mcpServerFor } from '../mcp/server';
import type { ApiToken } from '../store/tokens';
import { authenticate, presentedPrefix } from '../tokens/access';
import { takeRequest } from '../tokens/limits';
import { countUse } from '../tokens/usage';
import { currentRequestId } from '../log/request';

/**
 * POST /api/mcp: the MCP server (Streamable HTTP, stateless, JSON answers; docs/mcp.md) for an API token, judged
 * exactly as API v1 judges one — `Authorization: Bearer`, never a cookie; live, unexpired, its owner still allowed
 * to hold tokens (the one rule for who may act); one of its requests a minute taken per HTTP request. The tools then
 * read through API v1 itself (lib/mcp/tools.ts), so its scope, content and daily records apply to every call.
 */

/** The largest JSON-RPC message taken: a tool call's arguments are a few hundred bytes. */
export const MCP_MAX_BODY_BYTES = 64 * 1024;

const HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'private, no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** A refusal before any message is read, as JSON-RPC says an error with no request id is. */
function refusal(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  const body = { jsonrpc: '2.0', error: { code: -32000, message: `${code}: ${message}`, data: { code } }, id: null };
  return new Response(JSON.stringify(body), { status, headers: { ...HEADERS, ...headers } });
}

/** The body as text, or null past `max` bytes (by Content-Length before reading, or as it streams). */
async function boundedText(request: Request, max: number): Promise<string | null> {
  if (Number(request.headers.get('content-length') ?? 0) > max) return null;
  const chunks: Uint8Array[] = [];
  let read = 0;
  const reader = request.body?.getReader();
  for (let next = await reader?.read(); reader && next && !next.done; next = await reader.read()) {
    read += next.value.byteLength;
    if (read > max) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The body's JSON, or a refusal as JSON-RPC says a message that is not JSON is answered. */
function parsed(text: string): { ok: true; value: unknown } | { ok: false; response: Response } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    const body = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not JSON.' }, id: null };
    return { ok: false, response: new Response(JSON.stringify(body), { status: 400, headers: HEADERS }) };
  }
}

export async function serveMcp(request: Request): Promise<Response> {
  const address = clientAddress(request.headers);
  let token: ApiToken | null = null;
  let body: unknown;
  try {
    token = await authenticate(request.headers.get('authorization'), request.headers.has('cookie'));
    // Who asks is judged first, whatever the method (a signed-out GET is 401, as on every route).
    if (request.method !== 'POST')
      return refusal(405, 'METHOD_NOT_ALLOWED', 'This MCP server keeps no sessions: send each JSON-RPC message by POST.', {
        Allow: 'POST',
      });
    await takeRequest(token);
    const read = await boundedText(request, MCP_MAX_BODY_BYTES);
    if (read === null) return refusal(413, 'TOO_LARGE', `A message must be at most ${MCP_MAX_BODY_BYTES / 1024} KB.`);
    const json = parsed(read);
    if (!json.ok) return json.response;
    body = json.value;
    // A batch of messages is as many requests of the token's rate as it holds.
    for (let extra = Array.isArray(body) ? body.length - 1 : 0; extra > 0; extra -= 1) await takeRequest(token);
  } catch (error) {
    const refused = toV1Error(error);
    if (refused.status >= 500) console.error('[mcp] a request could not be judged:', error);
    if (token)
      countUse(token.id, {
        status: refused.status,
        records: 0,
        bytes: 0,
        address,
        request: {
          method: 'POST',
          path: '/api/mcp',
          durationMs: 0,
          requestId: `req_${currentRequestId() ?? 'mcp'}`,
          prefix: presentedPrefix(token),
        },
      });
    const headers: Record<string, string> = {};
    if (refused.status === 401) headers['WWW-Authenticate'] = 'Bearer realm="picks-api"';
    if (refused.retryAfterSeconds !== null) headers['Retry-After'] = String(Math.max(1, Math.ceil(refused.retryAfterSeconds)));
    return refusal(refused.status, refused.code, refused.message, headers);
  }
  const server = mcpServerFor({ token, address, signal: request.signal });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MCP_MAX_BODY_BYTES,
  });
  await server.connect(transport);
  try {
    // Read once here: bounded, and each message of a batch counted.
    const response = await transport.handleRequest(request, { parsedBody: body });
    response.headers.set('Cache-Control', 'private, no-store');
    return response;
  } finally {
    void server.close().catch(() => undefined);
  }
}
