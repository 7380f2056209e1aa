import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Store } from '@/lib/store/open';
import type { TokenScope } from '@/lib/vocabulary/tokens';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { pollSandbox, portalInProcess, testToken } from '../support/portal-in-process';

/**
 * The MCP server (POST /api/mcp, lib/http/mcp.ts) driven by the official SDK's client over real HTTP, the portal's
 * handler in this process and the sandbox as its upstream (its index filled by a poll): a token lists the tools, reads
 * within its scope and is refused outside it in words naming the scope, a revoked one is refused, each call is
 * audited with the token, and the limits of API v1 hold (records a day, requests a minute, the body's size).
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
let sandbox: Sandbox;
let store: Store;
let portal: Server;
let endpoint: URL;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 600 });
  const baseUrl = await sandbox.listen(0);
  store = await portalInProcess(baseUrl, KEY);
  await pollSandbox(store, baseUrl, KEY, () => sandbox.controls.now());
  const { putUser } = await import('@/lib/store/users');
  await putUser(store.db, { email: 'ed@example.com', role: 'editor', passwordHash: 'x' });
  const { serveMcp } = await import('@/lib/http/mcp');
  // Node's request as the web Request a route handler gets (what Next does before app/api/mcp/route.ts).
  portal = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const answer = await serveMcp(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body }));
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => portal.listen(0, '127.0.0.1', resolve));
  endpoint = new URL(`http://127.0.0.1:${(portal.address() as AddressInfo).port}/api/mcp`);
});

afterAll(async () => {
  await new Promise((resolve) => portal.close(resolve));
  await (await import('@/lib/store')).closeStore();
  sandbox.close();
});

async function tokenOf(scope: Partial<TokenScope>, limits: { dailyRecords?: number; ratePerMinute?: number } = {}) {
  return testToken(store, 'ed@example.com', { scope: { content: ['picks', 'results', 'changes'], ...scope }, ...limits });
}

async function connect(secret: string): Promise<Client> {
  const client = new Client({ name: 'contract-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { Authorization: `Bearer ${secret}` } } }));
  return client;
}

const textOf = (result: Json) => (result.content as { text: string }[]).map((c) => c.text).join('\n');
const audited = (tokenId: string) =>
  store.db.selectFrom('audit_log').selectAll().where('actor', '=', `token:${tokenId}`).orderBy('seq').execute();

describe('the MCP server', () => {
  it('lists its tools to a token, with API v1’s parameters and bounds', async () => {
    const { secret } = await tokenOf({});
    const client = await connect(secret);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ['changes_since', 'get_coverage', 'get_licence', 'get_pick', 'list_picks', 'list_results', 'search_records'].sort(),
    );
    const list = tools.find((tool) => tool.name === 'list_picks')!;
    const properties = list.inputSchema.properties as Json;
    expect(Object.keys(properties).sort()).toEqual(['cursor', 'from', 'league', 'limit', 'result', 'sport', 'status', 'to']);
    expect(properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    expect(properties.status.enum).toEqual(['upcoming', 'live', 'settled', 'void']);
    expect(list.annotations?.readOnlyHint).toBe(true);
    expect(tools.every((tool) => tool.outputSchema?.type === 'object')).toBe(true);
    await client.close();
  });

  it('reads Tennis with a Tennis token, and refuses Football in words that name its scope', async () => {
    const { token, secret } = await tokenOf({ sports: ['Tennis'] });
    const client = await connect(secret);
    const page = (await client.callTool({ name: 'list_picks', arguments: { sport: 'Tennis', limit: 5 } })) as Json;
    expect(page.isError).toBeFalsy();
    expect(page.structuredContent.data).toHaveLength(5);
    expect((page.structuredContent.data as { sport: string }[]).every((r) => r.sport === 'Tennis')).toBe(true);
    expect(JSON.parse(textOf(page)).data).toEqual(page.structuredContent.data);
    const licence = (await client.callTool({ name: 'get_licence', arguments: {} })) as Json;
    expect(licence.structuredContent.licence.sports).toEqual(['Tennis']);
    // A team the index holds (the polls' window), in lower case.
    const indexed = (await client.callTool({ name: 'search_records', arguments: { sort: 'eventDate', limit: 1 } })) as Json;
    const team = (indexed.structuredContent.data as { homeTeam: string }[])[0]!.homeTeam;
    const found = (await client.callTool({ name: 'search_records', arguments: { q: team.toLowerCase(), limit: 50 } })) as Json;
    expect(found.structuredContent.data.length).toBeGreaterThan(0);
    expect((found.structuredContent.data as { sport: string }[]).every((r) => r.sport === 'Tennis')).toBe(true);

    const football = (await client.callTool({ name: 'list_picks', arguments: { sport: 'Football' } })) as Json;
    expect(football.isError).toBe(true);
    expect(textOf(football)).toMatch(/^OUT_OF_SCOPE: .*Football.*outside this token's scope, which covers Tennis\..*get_licence/);
    const searched = (await client.callTool({ name: 'search_records', arguments: { q: 'a', sport: 'Football' } })) as Json;
    expect(textOf(searched)).toContain('This token may read Tennis only, not Football.');
    await client.close();

    const entries = await audited(token.id);
    expect(entries.map((e) => [e.action, e.target, e.outcome, e.error_code])).toEqual([
      ['mcp.call', 'list_picks', 'complete', null],
      ['mcp.call', 'get_licence', 'complete', null],
      ['mcp.call', 'search_records', 'complete', null],
      ['mcp.call', 'search_records', 'complete', null],
      ['mcp.call', 'list_picks', 'failed', 'OUT_OF_SCOPE'],
      ['mcp.call', 'search_records', 'failed', 'OUT_OF_SCOPE'],
    ]);
    // Not under the portal's own server here: the peer is unknown (lib/auth/client-address.ts).
    expect(entries[0]).toMatchObject({ records: 5, address: 'unknown', request_ids: expect.stringMatching(/^\["req_/) });
    expect(JSON.parse(entries[0]!.filters!)).toMatchObject({ sport: 'Tennis', limit: '5', owner: 'ed@example.com' });
  });

  it('refuses a revoked token, a session cookie and no token, before any tool runs', async () => {
    const { token, secret } = await tokenOf({});
    const client = await connect(secret);
    const { revokeToken } = await import('@/lib/store/tokens');
    const { forgetTokens } = await import('@/lib/tokens/access');
    await revokeToken(store.db, token.id, 'ed@example.com', Date.now());
    forgetTokens();
    await expect(client.callTool({ name: 'get_licence', arguments: {} })).rejects.toThrow(/401|Unauthorized|invalid credentials/i);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const post = (headers: Record<string, string>) =>
      fetch(endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(initialize),
      });
    const revoked = await post({ Authorization: `Bearer ${secret}` });
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get('www-authenticate')).toBe('Bearer realm="picks-api"');
    expect((await revoked.json()).error.message).toBe('UNAUTHORIZED: Missing or invalid credentials.');
    const cookie = await post({ Cookie: 'next-auth.session-token=x' });
    expect((await cookie.json()).error.message).toContain('A signed-in session is not accepted here');
    expect(await audited(token.id)).toEqual([]);
  });

  it('shows a pick with its history, holding back the fields of a content the token lacks', async () => {
    const { secret } = await tokenOf({ content: ['picks'] });
    const client = await connect(secret);
    // A settled pick the polls saw (so its history holds it).
    const page = (await client.callTool({ name: 'search_records', arguments: { sort: 'eventDate', status: 'settled', limit: 1 } })) as Json;
    const id = page.structuredContent.data[0].id as string;
    const pick = (await client.callTool({ name: 'get_pick', arguments: { id } })) as Json;
    expect(pick.isError).toBeFalsy();
    expect(pick.structuredContent.data.id).toBe(id);
    expect('result' in pick.structuredContent.data).toBe(false);
    const versions = pick.structuredContent.history.versions as Json[];
    expect(versions.length).toBeGreaterThan(0);
    expect(versions[0]!.record.id).toBe(id);
    expect(versions.some((v) => 'result' in v.record || 'settledAt' in v.record)).toBe(false);
    const missing = (await client.callTool({ name: 'get_pick', arguments: { id: 'no-such-pick' } })) as Json;
    expect(textOf(missing)).toMatch(/^NOT_FOUND: No pick has that id\. Check the id/);
    await client.close();
  });

  it('counts coverage within the token’s scope from the index, as its search totals it', async () => {
    const { secret } = await tokenOf({ sports: ['Tennis'] });
    const client = await connect(secret);
    const coverage = (await client.callTool({ name: 'get_coverage', arguments: {} })) as Json;
    expect(coverage.structuredContent.bySport.map((s: Json) => s.value)).toEqual(['Tennis']);
    const total = (await client.callTool({ name: 'search_records', arguments: { sort: 'eventDate', limit: 1 } })) as Json;
    expect(coverage.structuredContent.records).toBe(total.structuredContent.page.total);
    expect(coverage.structuredContent.bySport[0].records).toBe(total.structuredContent.page.total);
    expect(coverage.structuredContent.index.followedAt).not.toBeNull();
    await client.close();
  });

  it('names every wrong argument at once, and keeps the token’s records a day and requests a minute', async () => {
    const { secret } = await tokenOf({}, { dailyRecords: 3, ratePerMinute: 6 });
    const client = await connect(secret); // two requests: initialize, then its notification
    const wrong = (await client.callTool({ name: 'list_picks', arguments: { limit: 500, status: 'finished' } })) as Json;
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toMatch(/limit/);
    expect(textOf(wrong)).toMatch(/status/);
    const three = (await client.callTool({ name: 'list_picks', arguments: { limit: 10 } })) as Json;
    expect(three.structuredContent.data).toHaveLength(3);
    const spent = (await client.callTool({ name: 'list_picks', arguments: { limit: 10 } })) as Json;
    expect(textOf(spent)).toMatch(/^QUOTA_EXCEEDED: .*used up/);
    await client.callTool({ name: 'get_licence', arguments: {} }); // the sixth request this minute
    await expect(client.callTool({ name: 'get_licence', arguments: {} })).rejects.toThrow(/429|RATE_LIMITED/);
    await client.close();
  });

  it('logs each request of the token, REST and tool calls alike, for its page: filtered by status and path, its own only', async () => {
    const { token, secret } = await tokenOf({ sports: ['Tennis'] });
    const { serveV1OnNext } = await import('@/lib/api-v1/http');
    const get = (path: string) =>
      serveV1OnNext(new Request(`http://portal.test${path}`, { headers: { authorization: `Bearer ${secret}` } }));
    const rest = await get('/api/v1/picks?sport=Tennis&limit=2');
    await get('/api/v1/picks?sport=Football');
    const client = await connect(secret);
    await client.callTool({ name: 'get_licence', arguments: {} });
    await client.close();
    await (await import('@/lib/tokens/usage')).flushUsage();
    const { tokenRequestsPage, parseRequestsQuery } = await import('@/lib/http/token-logs');
    expect(parseRequestsQuery(new URLSearchParams('status=4xx&path=picks'))).toEqual({ status: 4, path: 'picks' });
    let refused: unknown;
    try {
      parseRequestsQuery(new URLSearchParams(`status=3xx&path=${'x'.repeat(201)}&before=yesterday`));
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({
      code: 'INVALID_FILTERS',
      details: { status: expect.any(String), path: expect.any(String), before: expect.any(String) },
    });
    const ed = { email: 'ed@example.com', role: 'editor' as const };
    const page = await tokenRequestsPage(ed, token.id, {});
    expect(page.keptDays).toBe(7);
    expect(page.data.map((r) => [r.method, r.path, r.status, r.records]).sort()).toEqual([
      ['GET', '/api/v1/picks?sport=Football', 403, 0],
      ['GET', '/api/v1/picks?sport=Tennis&limit=2', 200, 2],
      ['MCP', '/api/v1/me', 200, 0],
    ]);
    expect(page.data.find((r) => r.status === 200 && r.method === 'GET')!.requestId).toBe(rest.headers.get('x-request-id'));
    expect((await tokenRequestsPage(ed, token.id, { status: 4 })).data.map((r) => r.status)).toEqual([403]);
    expect((await tokenRequestsPage(ed, token.id, { path: 'TENNIS' })).data.map((r) => r.records)).toEqual([2]);
    await expect(tokenRequestsPage({ email: 'other@example.com', role: 'editor' }, token.id, {})).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('counts each message of a batch as one of the token’s requests a minute', async () => {
    const { secret } = await tokenOf({}, { ratePerMinute: 4 });
    const post = (body: unknown) =>
      fetch(endpoint, {
        method: 'POST',
        headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      });
    const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
    const batch = await post([list(1), list(2), list(3)]);
    expect(batch.status).toBe(200);
    expect(((await batch.json()) as Json[]).map((answer) => answer.result.tools.length)).toEqual([7, 7, 7]);
    expect((await post(list(4))).status).toBe(200); // the fourth this minute
    const over = await post(list(5));
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await over.json()) as Json).error.message).toBe(
      'RATE_LIMITED: This token may make 4 requests a minute. Try again in a moment.',
    );
    const notJson = await fetch(endpoint, { method: 'POST', headers: { Authorization: `Bearer ${secret}` }, body: '{' });
    expect(notJson.status).toBe(429); // judged before its body is read
  });

  it('answers only POST, and refuses a body over its bound before reading it', async () => {
    const { secret } = await tokenOf({});
    const get = await fetch(endpoint, { headers: { Authorization: `Bearer ${secret}`, Accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const big = await fetch(endpoint, {
      method: 'POST',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(70_000) } }),
    });
    expect(big.status).toBe(413);
  });
});
