import { Agent, createServer, request } from 'node:http';

/**
 * A bare pass-through proxy for bench/v1.ts: every request sent on to PASS_TARGET as it came and its answer
 * piped back, nothing read, checked or counted — what any proxy in Node costs a walk, the floor under the
 * portal's /api/v1 measured in the same run.
 */

const target = new URL(process.env.PASS_TARGET ?? 'http://127.0.0.1:4010');
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

createServer((req, res) => {
  const upstream = request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host }, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.writeHead(502).end());
  req.pipe(upstream);
}).listen(Number(process.env.PASS_PORT ?? 4600), '127.0.0.1');
