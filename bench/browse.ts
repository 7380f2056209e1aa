import autocannon from 'autocannon';
import { percentile, signIn, type Running } from './support';

/** What bench:load's phases share: the sessions, the pages they browse, and the exports that run alongside. */

export const SESSIONS = 50;

const PATHS = [
  '/picks',
  '/picks?sport=Football',
  '/picks?sport=Basketball&status=settled',
  '/picks?league=NBA',
  '/picks?league=Trinidad+%26+Tobago+Premier+League',
  '/picks?status=upcoming',
  '/picks?status=settled&result=win',
  '/picks?from=2026-11-01&to=2026-11-10',
  '/picks?sport=Tennis&limit=200',
  '/picks?limit=25',
  '/results',
  '/results?league=Premier+League',
  '/picks?sport=Ice+Hockey&status=live',
  '/picks?sport=Cricket&from=2026-10-01',
  '/licence',
];

/** Sessions one after another: the portal queues at most 32 sign-ins (password hashing) and refuses the rest. */
export async function signInMany(portalUrl: string, count: number) {
  const cookies: string[] = [];
  for (let i = 0; i < count; i += 1) cookies.push(await signIn(portalUrl));
  return cookies;
}

export async function sandboxStats(stack: Running) {
  return (await (await fetch(`${stack.sandboxUrl}/__sandbox/stats`)).json()) as { requests: number; throttled: number };
}

/**
 * Browses /picks and friends with varied filters, one session (cookie) per connection in turn; `pathFor`
 * gives another server's counterpart of each address (the bare page's, bench/bare.ts).
 */
export async function browse(
  stack: Running,
  cookies: string[],
  options: { duration?: number; amount?: number; connections?: number; pathFor?: (path: string) => string },
) {
  const pathFor = options.pathFor ?? ((path: string) => path);
  let n = 0;
  const latencies: number[] = [];
  const settings: autocannon.Options = {
    url: stack.portalUrl,
    connections: options.connections ?? SESSIONS,
    ...(options.duration ? { duration: options.duration } : {}),
    ...(options.amount ? { amount: options.amount } : {}),
    requests: [
      {
        setupRequest: (request) => {
          n += 1;
          return {
            ...request,
            path: pathFor(PATHS[n % PATHS.length]!),
            headers: { ...request.headers, cookie: cookies[n % cookies.length]! },
          };
        },
      },
    ],
  };
  // The callback form returns the instance, whose 'response' events carry every latency (for an exact p95).
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(settings, (error, done) => (error ? reject(error) : resolve(done)));
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
  const ms = (p: number) => Math.round(percentile(latencies, p));
  return { result, latency: { p50: ms(50), p95: ms(95), p99: ms(99), max: ms(100) } };
}

export async function exportLoop(stack: Running, cookie: string, until: () => boolean) {
  let done = 0;
  let failed = 0;
  while (!until()) {
    const format = done % 2 ? 'json' : 'csv';
    try {
      const res = await fetch(`${stack.portalUrl}/api/export/picks?format=${format}&sport=Football`, { headers: { cookie } });
      if (!res.ok) throw new Error(String(res.status));
      await res.arrayBuffer();
      done += 1;
    } catch {
      failed += 1;
    }
  }
  return { done, failed };
}
