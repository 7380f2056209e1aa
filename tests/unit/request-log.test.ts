import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PortalConfig } from '@/lib/config';
import { createPortalLogger } from '@/lib/log/create.mjs';
import { server, type FinishedRequest } from '@/lib/process-state';

/** Each request's log line (lib/log/requests.ts): its id, route pattern, status, duration, role, upstream ids; an email only when asked. */

const lines: Record<string, unknown>[] = [];
let saved: typeof server.log;
beforeAll(() => {
  saved = server.log;
  server.log = createPortalLogger({
    env: { LOG_LEVEL: 'info' },
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
});
afterAll(() => {
  server.log = saved;
});

const request = (over: Partial<FinishedRequest> = {}): FinishedRequest => ({
  pathname: '/picks/pk_123',
  method: 'GET',
  status: 200,
  seconds: 0.04217,
  cut: false,
  context: {
    signal: new AbortController().signal,
    requestId: 'f00dfeed12345678',
    user: { role: 'editor', email: 'ed@example.com' },
    upstream: ['req_a1', 'req_b2'],
  },
  ...over,
});

describe('request log lines', () => {
  it('say the route pattern, never the path’s ids or the email, with the upstream ids it caused', async () => {
    const { requestFinisher } = await import('@/lib/metrics/requests');
    lines.length = 0;
    requestFinisher({ LOG_USERS: false, LOG_REQUESTS: true } as PortalConfig)(request());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      component: 'http',
      reqId: 'f00dfeed12345678',
      method: 'GET',
      status: 200,
      ms: 42.2,
      role: 'editor',
      upstream: ['req_a1', 'req_b2'],
    });
    // A build's route patterns are absent under vitest: the path is `other`, never itself.
    expect(JSON.stringify(lines[0])).not.toContain('pk_123');
    expect(JSON.stringify(lines[0])).not.toContain('ed@example.com');
  });

  it('name the user with LOG_USERS=1; a 5xx is an error; probes and assets are debug; a cut answer says so', async () => {
    const { requestFinisher } = await import('@/lib/metrics/requests');
    lines.length = 0;
    const finish = requestFinisher({ LOG_USERS: true, LOG_REQUESTS: true } as PortalConfig);
    finish(request({ status: 502 }));
    finish(request({ pathname: '/api/health/ready', context: { ...request().context, user: null, upstream: [] } }));
    finish(request({ cut: true, context: { ...request().context, user: null, upstream: [] } }));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 'error', status: 502, user: 'ed@example.com' });
    expect(lines[1]).toMatchObject({ level: 'info', role: null, cut: true });
    expect(lines[1]).not.toHaveProperty('upstream');
  });

  it('beside the sandbox (LOG_REQUESTS unset there) print only failed requests; LOG_REQUESTS=1 prints them all', async () => {
    const { requestFinisher } = await import('@/lib/metrics/requests');
    const { parseConfig } = await import('@/lib/config');
    const sandbox = { PICKS_API_BASE_URL: 'http://127.0.0.1:4010', PICKS_API_KEY: 'k', AUTH_SECRET: 'x'.repeat(40), PORTAL_SANDBOX: '1' };
    expect(parseConfig(sandbox).LOG_REQUESTS).toBe(false);
    expect(parseConfig({ ...sandbox, LOG_REQUESTS: '1' }).LOG_REQUESTS).toBe(true);
    expect(parseConfig({ ...sandbox, PORTAL_SANDBOX: '' }).LOG_REQUESTS).toBe(true);
    lines.length = 0;
    const quiet = requestFinisher(parseConfig(sandbox));
    quiet(request());
    quiet(request({ status: 503 }));
    expect(lines.map((line) => line.status)).toEqual([503]);
    requestFinisher(parseConfig({ ...sandbox, LOG_REQUESTS: '1' }))(request());
    expect(lines.map((line) => line.status)).toEqual([503, 200]);
  });
});
