import 'server-only';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { recordAudit } from '../audit/record';
import { serveV1 } from '../api-v1/router';
import type { ApiToken } from '../store/tokens';
import { V1Error, type V1ErrorCode } from '../tokens/refusal';
import { MCP_TOOLS, type McpTool } from './tools';

/**
 * The MCP server one request of a token gets (stateless: lib/http/mcp.ts makes one a request, after it has judged
 * the token and taken one of its requests a minute). Every tool call is audited with the token (`mcp.call`), and
 * an error is told in words an assistant can act on: what was refused and what to do instead.
 */

export interface McpCaller {
  token: ApiToken;
  address: string | null;
  signal?: AbortSignal;
}

const INSTRUCTIONS =
  'Licensed sports picks and results of one partner, read through its API token: only what the token’s scope allows. Start with get_licence to learn the sports, leagues and dates it may read; search_records finds records by words or orders the whole set; list_picks and list_results read pages live; get_pick shows one record and its history; changes_since follows the change feed.';

/** What an assistant should do about each refusal, after the portal's own words. */
const NEXT_STEP: Record<string, string> = {
  OUT_OF_SCOPE: 'Ask only within the token’s scope: get_licence lists what it may read.',
  INVALID_FILTERS: 'Correct the arguments named and call again.',
  NOT_FOUND: 'Check the id: list_picks or search_records answer ids this token may read.',
  RATE_LIMITED: 'Wait the seconds given, then call again.',
  QUOTA_EXCEEDED:
    'The token’s records for today are used up; ask with a smaller limit tomorrow (midnight UTC), or ask an admin to raise it.',
  THROTTLED: 'The data source is throttling: wait the seconds given.',
  UNAVAILABLE: 'The data source is unavailable: try again shortly.',
  UPSTREAM_TIMEOUT: 'The data source did not answer in time: try again, perhaps with a smaller limit.',
  LICENCE_UNAVAILABLE: 'The partner’s licence cannot be read now: try again later.',
};

/** What API v1 answers, as far as a tool call reads it (lib/api-v1/shapes.ts has the whole shapes). */
type Answered = Record<string, unknown> & {
  data?: unknown;
  requestId?: string;
  error?: { code: V1ErrorCode; message: string; requestId: string };
};

export function mcpServerFor(caller: McpCaller): McpServer {
  const server = new McpServer({ name: 'picks-partner-portal', version: '1' }, { instructions: INSTRUCTIONS });
  for (const tool of MCP_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        // The shape without its name: a named schema is a $ref at the top, and MCP wants an object there.
        outputSchema: z.strictObject(tool.output.shape),
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      (args: Record<string, unknown>) => call(tool, args, caller),
    );
  }
  return server;
}

async function call(tool: McpTool, args: Record<string, unknown>, caller: McpCaller): Promise<CallToolResult> {
  const startedAt = Date.now();
  const requestIds: string[] = [];
  let records = 0;
  const v1 = async (path: string) => {
    const result = await serveV1(
      {
        url: new URL(path, 'http://portal.invalid'),
        header: () => null,
        signal: caller.signal,
        address: caller.address,
        actor: caller.token,
      },
      'GET',
    );
    const text = typeof result.body === 'string' ? result.body : Buffer.from(result.body).toString('utf8');
    const body = JSON.parse(text) as Answered;
    const requestId = body.requestId ?? body.error?.requestId;
    if (typeof requestId === 'string') requestIds.push(requestId);
    if (result.status !== 200) {
      const retry = result.headers['Retry-After'];
      throw new V1Error(
        result.status,
        body.error?.code ?? 'INTERNAL',
        body.error?.message ?? 'The portal hit an unexpected error.',
        retry ? Number(retry) : null,
      );
    }
    if (Array.isArray(body.data)) records += body.data.length;
    else if (body.data) records += 1;
    return body;
  };
  let result: CallToolResult;
  let failed: V1Error | null = null;
  try {
    const answer = await tool.answer(args, { token: caller.token, v1 });
    result = { structuredContent: answer, content: [{ type: 'text', text: JSON.stringify(answer) }] };
  } catch (error) {
    failed = error instanceof V1Error ? error : new V1Error(500, 'INTERNAL', 'The portal hit an unexpected error.');
    if (!(error instanceof V1Error)) console.error(`[mcp] ${tool.name} failed:`, error);
    const wait = failed.retryAfterSeconds === null ? '' : ` Retry after ${failed.retryAfterSeconds} s.`;
    const next = NEXT_STEP[failed.code] ?? '';
    result = { isError: true, content: [{ type: 'text', text: `${failed.code}: ${failed.message}${wait} ${next}`.trim() }] };
  }
  await recordAudit({
    actor: `token:${caller.token.id}`,
    action: 'mcp.call',
    target: tool.name,
    filters: { token: caller.token.name, owner: caller.token.owner, ...argumentsOf(args) },
    outcome: failed ? 'failed' : 'complete',
    errorCode: failed?.code ?? null,
    records,
    durationMs: Date.now() - startedAt,
    requestIds,
    address: caller.address,
  });
  return result;
}

/** A call's arguments as the audit trail keeps them: each as text, bounded. */
const argumentsOf = (args: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(args).map(([key, value]) => [key.slice(0, 40), String(value).slice(0, 200)]));
