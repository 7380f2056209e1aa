import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A programmable stand-in between the portal and an upstream, for fault tests over real HTTP.
 * POST /__faults with a JSON list of rules; GET /__requests lists what reached it; DELETE either to reset.
 * Each rule matches a path (regex) from its `from`-th matching request on, and answers with a status
 * and body, a delay before forwarding, a hang, a reset connection, or a truncated body.
 */

export interface FaultRule {
  path: string;
  from?: number;
  /** Apply to this many matching requests (from `from` on), then let them through: a transient fault. */
  times?: number;
  delayMs?: number;
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  kind?: 'hang' | 'reset' | 'truncate';
}

export function createFaultProxy(upstream: string) {
  let rules: (FaultRule & { seen: number })[] = [];
  let requests: { path: string; at: number; abandonedAt?: number }[] = [];

  const server = http.createServer(async (req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith('/__faults')) {
      if (req.method === 'POST') {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        rules = (JSON.parse(Buffer.concat(chunks).toString() || '[]') as FaultRule[]).map((rule) => ({ ...rule, seen: 0 }));
      } else if (req.method === 'DELETE') rules = [];
      return void res.end(JSON.stringify(rules));
    }
    if (url.startsWith('/__requests')) {
      if (req.method === 'DELETE') requests = [];
      return void res.end(JSON.stringify(requests));
    }
    const entry: (typeof requests)[number] = { path: url, at: Date.now() };
    requests.push(entry);
    // The portal hung up before the answer was complete: it stopped asking (cancelled, timed out).
    res.on('close', () => {
      if (!res.writableEnded) entry.abandonedAt = Date.now();
    });
    const rule = rules.find((r) => {
      if (!new RegExp(r.path).test(url)) return false;
      r.seen += 1;
      return r.seen >= (r.from ?? 1) && (r.times === undefined || r.seen < (r.from ?? 1) + r.times);
    });
    if (rule?.delayMs) await new Promise((r) => setTimeout(r, rule.delayMs));
    if (rule?.kind === 'hang') return; // never answers
    if (rule?.kind === 'reset') return void req.socket.destroy();
    if (rule?.status) {
      res.writeHead(rule.status, { 'Content-Type': 'application/json', ...rule.headers });
      return void res.end(rule.body ?? '');
    }
    try {
      const answer = await fetch(`${upstream}${url}`, { headers: { authorization: req.headers.authorization ?? '' } });
      const text = await answer.text();
      const headers: Record<string, string> = {};
      answer.headers.forEach((value, key) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(key)) headers[key] = value;
      });
      res.writeHead(answer.status, headers);
      res.end(rule?.kind === 'truncate' ? text.slice(0, Math.floor(text.length / 2)) : text);
    } catch {
      res.writeHead(502);
      res.end();
    }
  });

  return {
    server,
    async listen(port = 0): Promise<string> {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
