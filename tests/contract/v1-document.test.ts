import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@/lib/store/open';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { answerChecker } from '../support/openapi-check';
import { portalInProcess, testToken } from '../support/portal-in-process';

/**
 * API v1 promises every record's id (its OpenAPI document types it a string): a record the upstream sends without
 * one — null, empty or absent, as the spec's "not shown" allows — is not served. An upstream in front of the
 * sandbox takes the ids off three records of each page.
 */

const KEY = 'sandbox-full-key';
let sandbox: Sandbox;
let idless: Server;
let store: Store;
let upstream = '';

beforeAll(async () => {
  sandbox = createSandbox({ rateLimit: null, picks: 300 });
  upstream = await sandbox.listen(0);
  idless = createServer((req, res) => {
    void fetch(new URL(req.url ?? '/', upstream), { headers: { authorization: String(req.headers.authorization) } }).then(
      async (answer) => {
        let text = await answer.text();
        if (req.url?.startsWith('/api/v1/picks?') && answer.ok) {
          const page = JSON.parse(text) as { data: Record<string, unknown>[] };
          page.data.slice(0, 3).forEach((record, i) => (i === 2 ? delete record.id : (record.id = i === 0 ? null : '')));
          text = JSON.stringify(page);
        }
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(text);
      },
    );
  });
  await new Promise<void>((resolve) => idless.listen(0, '127.0.0.1', resolve));
  store = await portalInProcess(`http://127.0.0.1:${(idless.address() as AddressInfo).port}`, KEY);
  await (await import('@/lib/store/users')).putUser(store.db, { email: 'ed@example.com', role: 'editor', passwordHash: 'x' });
});

afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  idless.close();
  sandbox.close();
});

describe('a record without an id', () => {
  it('is not served by API v1: every record of its pages has one, and the page still validates against the document', async () => {
    const { serveV1OnNext } = await import('@/lib/api-v1/http');
    const { v1Document } = await import('@/lib/api-v1/openapi');
    const { secret } = await testToken(store, 'ed@example.com', { scope: { content: ['picks', 'results'] }, dailyRecords: 1_000_000 });
    const direct = (await (await fetch(`${upstream}/api/v1/picks?limit=20`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
      data: { id: string }[];
    };
    const res = await serveV1OnNext(
      new Request('http://portal.test/api/v1/picks?limit=20', { headers: { authorization: `Bearer ${secret}` } }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { id: unknown }[] };
    expect(body.data.map((r) => r.id)).toEqual(direct.data.slice(3).map((r) => r.id));
    expect(answerChecker(v1Document())('GET', '/api/v1/picks', 200, body, res.headers.get('content-type'))).toBeNull();
  });
});

describe('the document a portal serves', () => {
  it('names the portal by its public URL, and types every record’s id a string; the committed copy names the host as a variable', async () => {
    const { serveV1OnNext } = await import('@/lib/api-v1/http');
    const { getConfig, portalOrigin } = await import('@/lib/config');
    const res = await serveV1OnNext(new Request('http://portal.test/api/v1/openapi.json'));
    const served = (await res.json()) as { servers: { url: string }[]; components: { schemas: { Pick: { required?: string[] } } } };
    expect(served.servers).toEqual([{ url: portalOrigin(getConfig()), description: 'This portal' }]);
    expect(served.servers[0]!.url).toMatch(/^https?:\/\/[^/]+$/);
    expect(served.components.schemas.Pick.required).toEqual(['id']);
    const committed = JSON.parse(await readFile('clients/typescript/openapi/v1.json', 'utf8')) as { servers: { url: string }[] };
    expect(committed.servers.map((s) => s.url)).toEqual(['https://{portal}']);
  });
});
