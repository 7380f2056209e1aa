import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestPolicy, RETURN_HEADER, type RequestPolicyOptions } from '@/lib/http/request-policy';

/**
 * The request policy in front of a real HTTP server, as scripts/portal-server.mjs applies it: what reaches
 * "Next" (here a handler that echoes the request headers it was given) and what is answered before it.
 */

/** The sizes of the bodies "Next" read to their end. */
const bodiesRead: number[] = [];

interface Portal {
  url: string;
  close: () => Promise<void>;
}

async function portalWith(options: Partial<RequestPolicyOptions>): Promise<Portal> {
  const policy = createRequestPolicy({
    upstreamOrigin: 'https://api.picks.example',
    imageOrigins: ['https://logos.example'],
    secure: false,
    dev: false,
    origin: 'http://localhost:3000',
    maxBodyBytes: 64 * 1024,
    maxCheckBytes: 256 * 1024,
    ...options,
  });
  const server: Server = createServer(async (req, res) => {
    if (policy(req, res)) return;
    let bodyBytes = 0;
    try {
      for await (const chunk of req) bodyBytes += (chunk as Buffer).length;
    } catch {
      return; // the policy cut the body off: this handler never saw its end
    }
    bodiesRead.push(bodyBytes);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ url: req.url, headers: req.headers, bodyBytes }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const seen = async (res: Response) => ((await res.json()) as { headers: Record<string, string | undefined> }).headers;
const nonceOf = (csp: string | null | undefined) => /'nonce-([^']+)'/.exec(csp ?? '')?.[1];

describe('request policy over http', () => {
  let plain: Portal;
  let secure: Portal;
  beforeAll(async () => {
    plain = await portalWith({});
    secure = await portalWith({ secure: true });
  });
  afterAll(async () => {
    await plain.close();
    await secure.close();
  });

  it('sends a page without a session cookie to /login with the whole address, and / to /login alone', async () => {
    const res = await fetch(`${plain.url}/picks?sport=Cricket&status=settled`, { redirect: 'manual' });
    expect(res.status).toBe(307);
    expect(res.headers.get('location')).toBe('/login?callbackUrl=%2Fpicks%3Fsport%3DCricket%26status%3Dsettled');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const home = await fetch(`${plain.url}/`, { redirect: 'manual' });
    expect(home.headers.get('location')).toBe('/login');
    // The router's _rsc key is not part of the address to come back to; dot segments are resolved.
    const rsc = await fetch(`${plain.url}/picks/../results?_rsc=abc&league=Premier%20League`, { redirect: 'manual' });
    expect(new URL(rsc.headers.get('location')!, plain.url).searchParams.get('callbackUrl')).toBe('/results?league=Premier+League');
    // A scheme-relative path cannot become another host.
    const evil = await fetch(`${plain.url}//evil.example/steal`, { redirect: 'manual' });
    expect(evil.status).toBe(307);
    expect(new URL(evil.headers.get('location')!, plain.url).host).toBe(new URL(plain.url).host);
  });

  it('lets /login, route handlers and assets through without a cookie', async () => {
    for (const path of ['/login', '/login?callbackUrl=%2Fpicks', '/api/health', '/api/export/picks?format=csv']) {
      const res = await fetch(`${plain.url}${path}`, { redirect: 'manual' });
      expect(res.status, path).toBe(200);
    }
    for (const path of [
      '/_next/static/chunks/app.js',
      '/_next/image?url=x',
      '/icon.svg',
      '/favicon.ico',
      '/verify-picks-file.mjs',
      '/picks-file-readers.mjs',
    ]) {
      const res = await fetch(`${plain.url}${path}`, {
        redirect: 'manual',
        headers: { 'content-security-policy': "script-src 'nonce-client'" },
      });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-security-policy'), path).toBeNull();
      expect((await seen(res))['content-security-policy'], path).toBeUndefined(); // a client cannot choose a nonce
    }
  });

  it('judges assets on the routed path, exactly: a page reached through an asset-looking path keeps its policy', async () => {
    const raw = (path: string) =>
      new Promise<{ status: number; csp: string | undefined }>((resolve, reject) => {
        const { hostname, port } = new URL(plain.url);
        const req = request({ hostname, port, path, headers: { cookie: 'portal.session=x' } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode!, csp: res.headers['content-security-policy'] as string | undefined });
        });
        req.on('error', reject);
        req.end();
      });
    for (const path of [
      '/_next/static/%2e%2e/%2e%2e/licence',
      '/_next/static/%2E%2E/%2E%2E/admin/users',
      '/_next/static/../../licence',
      '/icon.svg/%2e%2e/licence',
      '/favicon.ico/..%2f..%2flicence',
      '/_next/image/../../picks',
      '/verify-picks-file.mjs/x',
    ]) {
      const { status, csp } = await raw(path);
      expect(status, path).toBe(200);
      expect(nonceOf(csp), path).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    }
    expect((await raw('/_next/static/chunks/app/(portal)/tokens/%5Bid%5D/page-1a2b.js')).csp).toBeUndefined();
  });

  it('passes a page with the cookie (whole or in chunks), with the return address it set, whatever the client sent', async () => {
    for (const cookie of ['portal.session=x', 'other=1; portal.session.0=a; portal.session.1=b']) {
      const res = await fetch(`${plain.url}/results?sport=Tennis`, { headers: { cookie, [RETURN_HEADER]: '//evil.example' } });
      expect(res.status, cookie).toBe(200);
      expect((await seen(res))[RETURN_HEADER], cookie).toBe('/results?sport=Tennis');
    }
    // A cookie of another name is no session cookie.
    const other = await fetch(`${plain.url}/licence`, { headers: { cookie: 'portal.sessionx=1; xportal.session=2' }, redirect: 'manual' });
    expect(other.status).toBe(307);
    // Route handlers never get a return address, even one a client wrote.
    const api = await fetch(`${plain.url}/api/health`, { headers: { [RETURN_HEADER]: '/picks' } });
    expect((await seen(api))[RETURN_HEADER]).toBeUndefined();
  });

  it('gives every request its own nonce, in the response and in the header Next reads, never the client’s', async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 5; i += 1) {
      const res = await fetch(`${plain.url}/login`, { headers: { 'content-security-policy': "script-src 'nonce-client'" } });
      const csp = res.headers.get('content-security-policy');
      const forNext = (await seen(res))['content-security-policy'];
      expect(forNext).toBe(csp);
      expect(nonceOf(csp)).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      nonces.add(nonceOf(csp)!);
      expect(csp).toContain("img-src 'self' data: https://api.picks.example https://logos.example");
      for (const directive of ["object-src 'none'", "frame-ancestors 'none'", "base-uri 'self'", "form-action 'self'"])
        expect(csp).toContain(directive);
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers.get('strict-transport-security')).toBeNull();
    }
    expect(nonces.size).toBe(5);
  });

  it('refuses a malformed %-escape with a plain 400 before any routing', async () => {
    for (const path of ['/picks/%E0%A4%A', '/api/picks/%', '/%zz']) {
      const res = await fetch(`${plain.url}${path}`, { headers: { cookie: 'portal.session=x' } });
      expect(res.status, path).toBe(400);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await res.text()).toBe('Bad request: the address has a malformed %-escape.');
    }
  });

  it('over https: HSTS, and only the __Host- cookie counts', async () => {
    const plainName = await fetch(`${secure.url}/picks`, { headers: { cookie: 'portal.session=x' }, redirect: 'manual' });
    expect(plainName.status).toBe(307);
    const res = await fetch(`${secure.url}/picks`, { headers: { cookie: '__Host-portal.session=x' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('strict-transport-security')).toBe('max-age=63072000; includeSubDomains');
  });

  it('in development: eval and hot-reload sockets allowed, the dev server’s own endpoints untouched', async () => {
    const dev = await portalWith({ dev: true });
    try {
      const res = await fetch(`${dev.url}/login`);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain(" 'unsafe-eval'");
      expect(csp).toContain("connect-src 'self' ws:");
      const hmr = await fetch(`${dev.url}/_next/webpack-hmr`, { redirect: 'manual' });
      expect(hmr.status).toBe(200);
    } finally {
      await dev.close();
    }
  });

  const post = (path: string, headers: Record<string, string>, body?: BodyInit) =>
    fetch(`${plain.url}${path}`, { method: 'POST', headers: { cookie: 'portal.session=x', ...headers }, body, redirect: 'manual' });

  it('refuses a state-changing request from another site, a sibling subdomain, or without the portal as its Origin', async () => {
    const refusals = [
      [{ origin: 'http://localhost:3000', 'sec-fetch-site': 'cross-site' }, 'another site'],
      [{ origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' }, 'another site'],
      [{}, 'must carry an Origin header naming the portal (http://localhost:3000)'],
      [{ origin: 'https://evil.example' }, 'came from https://evil.example'],
      [{ origin: 'http://reports.localhost.example:3000' }, 'not from the portal'],
      [{ origin: 'null' }, 'not from the portal'],
      [{ origin: 'http://localhost:3001' }, 'not from the portal'],
      [{ origin: 'https://localhost:3000' }, 'not from the portal'],
    ] as const;
    for (const [headers, message] of refusals)
      for (const method of ['POST', 'PATCH', 'DELETE', 'PUT']) {
        const res = await fetch(`${plain.url}/api/deliveries`, { method, headers: { cookie: 'portal.session=x', ...headers } });
        expect(res.status, `${method} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
          code: 'FORBIDDEN',
          message: expect.stringContaining(message),
        });
      }
    // The portal itself (and its loopback aliases on the same port), same-origin: through.
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000'])
      expect((await post('/api/deliveries', { origin, 'sec-fetch-site': 'same-origin' })).status, origin).toBe(200);
    // Reading needs no Origin.
    expect((await fetch(`${plain.url}/api/health`, { headers: { 'sec-fetch-site': 'same-site' } })).status).toBe(200);
  });

  it('asks no Origin of the token-only API v1 and MCP server (bearer, never a cookie), judged on the routed path', async () => {
    // fetch would resolve the dot segments itself: send the path as written, as a client could.
    const rawPost = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${plain.url}${path}`, { method: 'POST', headers: { cookie: 'portal.session=x' } }, (res) =>
          resolve(res.statusCode!),
        );
        req.on('error', reject);
        req.end();
      });
    expect(await rawPost('/api/v1/picks')).toBe(200);
    expect(await rawPost('/api/v1')).toBe(200);
    // A path that only looks like API v1 until its dot segments are resolved is judged as the route it reaches.
    expect(await rawPost('/api/v1/../tokens')).toBe(403);
    expect(await rawPost('/api/v1/%2e%2e/tokens')).toBe(403);
    expect(await rawPost('/api/v10/picks')).toBe(403);
    // The MCP server takes JSON-RPC by POST from an assistant's machine: no Origin there either.
    expect(await rawPost('/api/mcp')).toBe(200);
    expect(await rawPost('/api/mcp/../tokens')).toBe(403);
    expect(await rawPost('/api/mcpx')).toBe(403);
  });

  it('refuses a body over the limit with 413 before it is read, by Content-Length or as it streams', async () => {
    const origin = { origin: 'http://localhost:3000' };
    const before = bodiesRead.length;
    const declared = await post('/api/auth/callback/credentials', { ...origin, 'content-type': 'text/plain' }, 'x'.repeat(64 * 1024 + 1));
    expect(declared.status).toBe(413);
    expect(declared.headers.get('x-content-type-options')).toBe('nosniff');
    expect(((await declared.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'The request body is larger than the portal accepts (64 KB).',
    });
    // Chunked (no Content-Length): counted as it arrives; the handler reading it never sees its end.
    const chunks = new ReadableStream({
      pull(controller) {
        controller.enqueue(new Uint8Array(16 * 1024));
      },
    });
    const streamed = await fetch(`${plain.url}/api/deliveries`, {
      method: 'POST',
      headers: origin,
      body: chunks,
      duplex: 'half',
    } as RequestInit).catch((error: Error) => error);
    if (streamed instanceof Response) expect(streamed.status).toBe(413);
    else expect(streamed.message).toMatch(/fetch failed|other side closed|reset/); // closed while still sending
    expect(bodiesRead.slice(before)).toEqual([]);
    // At the limit, whole bodies go through, either way.
    const ok = await post('/api/deliveries', origin, 'x'.repeat(64 * 1024));
    expect(await ok.json()).toMatchObject({ bodyBytes: 64 * 1024 });
    const small = await fetch(`${plain.url}/api/deliveries`, {
      method: 'POST',
      headers: origin,
      body: new Blob(['y'.repeat(1000)]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(await small.json()).toMatchObject({ bodyBytes: 1000 });
  });

  it('lets "check a file" alone take a file up to its own limit, and no more', async () => {
    const origin = { origin: 'http://localhost:3000' };
    const file = await post('/api/proof/check', origin, 'x'.repeat(200 * 1024));
    expect(await file.json()).toMatchObject({ bodyBytes: 200 * 1024 });
    expect((await post('/api/proof/check?x=1', origin, 'x'.repeat(256 * 1024 + 1))).status).toBe(413);
    expect((await post('/api/proof/check/../deliveries', origin, 'x'.repeat(200 * 1024))).status).toBe(413);
    expect((await post('/api/deliveries', origin, 'x'.repeat(200 * 1024))).status).toBe(413);
  });
});
