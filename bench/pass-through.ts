import { Agent, createServer, request } from 'node:http';
import { fitsQuickly } from '../lib/picks-api/quick-check';
import { pickListSchema } from '../lib/picks-api/schemas';

/**
 * Pass-through proxies for bench/v1.ts, the floors under the portal's /api/v1 measured in the same run:
 * - bare (the default): every request sent on to PASS_TARGET as it came and its answer piped back, nothing
 *   read, checked or counted — what any proxy in Node costs a walk;
 * - PASS_CHECK=1: the same, but a list's body is read whole, parsed (as byte strings, as the portal does) and its
 *   records checked against the portal's own schema before its bytes are passed on — the floor of a proxy
 *   that passes no unchecked record on, with nothing else of the portal's (tokens, quotas, scopes, cursors).
 */

const target = new URL(process.env.PASS_TARGET ?? 'http://127.0.0.1:4010');
const checking = process.env.PASS_CHECK === '1';
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

createServer((req, res) => {
  const upstream = request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host }, agent },
    (answer) => {
      if (!checking || !req.url?.startsWith('/api/v1/picks?')) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const body: unknown = JSON.parse(bytes.toString('latin1'));
        if (!fitsQuickly(pickListSchema, body) && !pickListSchema.safeParse(body).success) return void res.writeHead(502).end();
        res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json', 'content-length': bytes.length });
        res.end(bytes);
      });
    },
  );
  upstream.on('error', () => res.writeHead(502).end());
  req.pipe(upstream);
}).listen(Number(process.env.PASS_PORT ?? 4600), '127.0.0.1');
