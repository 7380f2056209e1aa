import { createServer, request } from 'node:http';

/**
 * An upstream for the benchmarks that costs (almost) nothing: each answer of the sandbox behind it is kept
 * in memory the first time it is asked for and replayed byte for byte after that, REPLAY_DELAY_MS later
 * (0: an instant upstream; 40: a remote one). Requests and answers are the sandbox's own, so the portal and
 * a raw walk see the same pages; only the upstream's own work leaves the measurement.
 */

const target = new URL(process.env.REPLAY_TARGET ?? 'http://127.0.0.1:4010');
const delayMs = Number(process.env.REPLAY_DELAY_MS ?? 0);
// REPLAY_KEEP=0: nothing kept, every request goes to the sandbox (its throttling counts them) and its answer
// comes back REPLAY_DELAY_MS late — a slow upstream rather than a free one (bench:soak).
const keep = process.env.REPLAY_KEEP !== '0';
const cache = new Map<string, { status: number; headers: Record<string, string>; body: Buffer }>();
// Requests per API route (me, health, picks, pick, results), served from memory or not, and those of them that
// were not in memory (asked of the sandbox): GET /__replay/stats.
const byRoute: Record<string, number> = {};
const missed: Record<string, number> = {};

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://replay');
  if (url.pathname === '/__replay/stats')
    return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ byRoute, missed }));
  const [, resource, id] = /^\/api\/v1\/(\w+)(\/.+)?$/.exec(url.pathname) ?? [];
  const route = resource ? (id ? 'pick' : resource) : null;
  if (route) byRoute[route] = (byRoute[route] ?? 0) + 1;
  const key = `${req.headers.authorization ?? ''} ${req.url}`;
  const send = () => {
    const hit = cache.get(key)!;
    res.writeHead(hit.status, hit.headers).end(hit.body);
  };
  if (cache.has(key)) {
    if (delayMs > 0) setTimeout(send, delayMs);
    else send();
    return;
  }
  if (route) missed[route] = (missed[route] ?? 0) + 1;
  const upstream = request(
    new URL(req.url ?? '/', target),
    { method: req.method, headers: { ...req.headers, host: target.host } },
    (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const headers: Record<string, string> = {};
        for (const name of ['content-type', 'x-request-id', 'retry-after']) {
          const value = answer.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        const entry = { status: answer.statusCode ?? 502, headers, body: Buffer.concat(chunks) };
        if (entry.status === 200 && keep) cache.set(key, entry);
        const reply = () => res.writeHead(entry.status, headers).end(entry.body);
        if (!keep && delayMs > 0) setTimeout(reply, delayMs);
        else reply();
      });
    },
  );
  upstream.on('error', () => res.writeHead(502).end());
  req.pipe(upstream);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.REPLAY_PORT ?? 4011), '127.0.0.1');
