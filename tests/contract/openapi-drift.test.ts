import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { v1Contract, type Runner } from '../support/v1-contract';

/**
 * The scratch change the OpenAPI checks exist for: an API v1 whose answers carry one field its document does not
 * describe. The project's own API v1 contract suite (tests/support/v1-contract.ts, the one tokens.spec runs against
 * the portal) is run twice over real HTTP against the same upstream — as it answers, and with `"debug": true` added to
 * every JSON answer by a proxy — with the portal's committed document served as the API's. The suite passes the
 * first and fails the second, each new failure naming the field.
 */

const DOCUMENT = 'clients/typescript/openapi/v1.json';
let sandbox: Sandbox;
let upstream: string;
let proxy: Server;
let base: string;
let doctored = false;

beforeAll(async () => {
  sandbox = createSandbox({ now: () => Date.parse('2026-11-22T12:00:00Z'), rateLimit: null, picks: 1200 });
  upstream = await sandbox.listen(0);
  const document = await readFile(DOCUMENT);
  proxy = createServer(async (req, res) => {
    if (req.url === '/api/v1/openapi.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(document);
    const answer = await fetch(`${upstream}${req.url}`, {
      method: req.method,
      headers: { authorization: req.headers.authorization ?? '' },
    });
    const headers = Object.fromEntries([...answer.headers].filter(([name]) => !['content-length', 'content-encoding'].includes(name)));
    let body = await answer.text();
    if (doctored && (answer.headers.get('content-type') ?? '').includes('json') && body)
      body = JSON.stringify({ ...(JSON.parse(body) as object), debug: true });
    res.writeHead(answer.status, headers).end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await sandbox.close();
});

/** Runs the contract suite here, test by test, and says which failed and why (vitest's expect does the checking). */
async function runSuite(): Promise<Map<string, string>> {
  const before: (() => Promise<void>)[] = [];
  const tests: [string, () => Promise<void>][] = [];
  const path: string[] = [];
  const runner: Runner = {
    describe: (name, body) => {
      path.push(name);
      body();
      path.pop();
    },
    it: (name, body) => void tests.push([[...path, name].join(' › '), body]),
    beforeAll: (body) => void before.push(body),
    expect,
  };
  v1Contract(runner, () => ({ baseUrl: base, key: 'sandbox-full-key', describedBy: '/api/v1/openapi.json' }));
  const failed = new Map<string, string>();
  // An assertion's message is cut short; what it got (the checker's problem) is whole in `actual`.
  const said = (error: Error & { actual?: unknown }) => `${error.message} ${typeof error.actual === 'string' ? error.actual : ''}`;
  for (const body of before)
    await body().catch((error: Error) => void failed.set('beforeAll (a walk of every pick through the client)', said(error)));
  for (const [name, body] of tests) await body().catch((error: Error) => void failed.set(name, said(error)));
  return failed;
}

const UPSTREAM_ONLY = [
  'API v1: endpoints › GET /me describes the caller and its licence, with a requestId',
  'API v1: errors › 404 for an unknown id',
];

describe('a field the document does not describe, added to every answer', () => {
  it('fails the API v1 contract suite, which passes without it', { timeout: 120_000 }, async () => {
    doctored = false;
    const clean = await runSuite();
    // The upstream stands in for the portal here: its /me describes the partner (the portal's describes a token) and
    // its unknown id is the upstream's PICK_NOT_FOUND (the portal answers NOT_FOUND). Nothing else differs.
    expect([...clean.keys()].sort()).toEqual(UPSTREAM_ONLY);

    doctored = true;
    const failed = await runSuite();
    const walk = failed.get('beforeAll (a walk of every pick through the client)');
    expect(walk).toContain('GET /api/v1/picks 200: (the body) must NOT have additional properties: debug');
    // Every test that checks an answer of its own fails naming the field (others fail for want of the walk's records).
    const named = [...failed].filter(
      ([name, message]) => !UPSTREAM_ONLY.includes(name) && message.includes('additional properties: debug'),
    );
    expect(named.length).toBeGreaterThanOrEqual(8);
  });
});
