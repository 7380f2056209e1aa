// The portal's production HTTP server (what `npm start` runs): Next's own request handler behind a
// plain Node server, for one reason: the portal must know the socket's peer address, which `next start`
// does not pass on (it keeps any X-Forwarded-For a client sends). The address goes into one header,
// always overwritten, and lib/auth/client-address.ts believes that header only in a process marked here.
// It also gives every request an AbortSignal that fires when the client leaves early (lib/request-signal.ts):
// Next does not abort a server component render then, and the render's upstream calls should stop.
// Before Next sees a request it meets the portal's request policy (lib/http/request-policy.ts: CSP nonce, HSTS,
// the sign-in redirect), which the app's instrumentation installs at start from the validated configuration.
// `npm run dev` runs this server too (NODE_ENV=development), so development meets the same policy.
// Every request gets the portal's request id (X-Request-Id, error bodies, its log line), and everything this
// process prints, Next's own errors included, is one JSON line of the process's logger (lib/log/).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import next from 'next';
import { captureConsole, createPortalLogger } from '../lib/log/create.mjs';

const PEER_HEADER = 'x-portal-peer-address'; // the same name as in lib/auth/client-address.ts
const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.PORTAL_LISTEN_HOST || undefined;

// What this server and the app hand each other: one holder on globalThis, typed in lib/process-state.ts (ServerHandoff).
const handoff = ((globalThis.__portal ??= {}).server ??= {});
handoff.peerHeader = PEER_HEADER;
const requestContext = (handoff.requestContext = new AsyncLocalStorage());
const logger = (handoff.log = createPortalLogger());
captureConsole(logger, {
  context: () => {
    const request = requestContext.getStore();
    return request ? { reqId: request.requestId } : undefined;
  },
  // An answer cut off mid-way (an export whose upstream failed after its first bytes, a client that left): Next
  // throws "failed to pipe response" with a stack; what an operator needs is which request, and why.
  special: (error, fields) => {
    if (error.message !== 'failed to pipe response') return false;
    const cause = error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : String(error.cause ?? 'unknown');
    logger.warn({ ...fields, component: 'http', cause }, 'the response was cut off mid-way: the client got an incomplete body');
    return true;
  },
});
const dev = process.env.NODE_ENV === 'development';
const installed = new Promise((resolve) => (handoff.policyInstalled = resolve));
const app = next({ dev, port, hostname: hostname ?? 'localhost' });
const handle = app.getRequestHandler();
await app.prepare();
// Next runs instrumentation during prepare or just after it: nothing is served before the policy is in place.
let waiting;
const policy = await Promise.race([installed, new Promise((resolve) => (waiting = setTimeout(resolve, 120_000)))]);
clearTimeout(waiting);
if (typeof policy !== 'function') {
  logger.fatal({ component: 'portal' }, 'the request policy was not installed (instrumentation did not run): not serving without it.');
  process.exit(1);
}

// The portal's API v1 (lib/api-v1/http.ts), handed over by instrumentation with the policy.
const serveV1 = handoff.v1;
const V1_PATH = /^\/api\/v1(?:\/|$)/;

// Metrics (lib/metrics, installed with the policy): /metrics for a bearer of METRICS_TOKEN, never for a
// session cookie; or on METRICS_LISTEN without a token. Every other request is counted and logged when it closes.
const metricsHook = handoff.requests;
const digest = (text) => createHash('sha256').update(text).digest();
const tokenOk = (header) => Boolean(metricsHook?.token) && timingSafeEqual(digest(header ?? ''), digest(`Bearer ${metricsHook.token}`));
async function serveMetrics(req, res, open) {
  if (!open && !metricsHook?.token) return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
  if (!open && !tokenOk(req.headers.authorization)) {
    res.writeHead(401, { 'Content-Type': 'text/plain', 'WWW-Authenticate': 'Bearer realm="metrics"', 'Cache-Control': 'no-store' });
    return void res.end('A bearer token (METRICS_TOKEN) is needed.');
  }
  const { contentType, body } = await metricsHook.render();
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
  res.end(body);
}
if (metricsHook?.listen) {
  const at = metricsHook.listen.lastIndexOf(':');
  const host = metricsHook.listen.slice(0, at).replace(/^\[|\]$/g, '');
  createServer((req, res) => {
    if (req.url?.split('?')[0] === '/metrics') return void serveMetrics(req, res, true);
    res.writeHead(404).end();
  }).listen(Number(metricsHook.listen.slice(at + 1)), host, () =>
    logger.info({ component: 'portal' }, `metrics on http://${metricsHook.listen}/metrics`),
  );
}

let stoppedAt = 0;
// Requests being answered: a stop lets them finish (lib/start/shutdown.ts waits for them) before the store closes.
let inFlight = 0;
handoff.inFlight = () => inFlight;
const errorBody = (status, code, message, portalRequestId) =>
  JSON.stringify({ error: { status, code, message, requestId: null, portalRequestId } });
const server = createServer((req, res) => {
  const pathname = (req.url ?? '/').split('?')[0];
  if (pathname === '/metrics') return void serveMetrics(req, res, false);
  const started = process.hrtime.bigint();
  inFlight += 1;
  const left = new AbortController();
  const context = { signal: left.signal, requestId: randomBytes(8).toString('hex'), user: null, upstream: [] };
  res.setHeader('X-Request-Id', context.requestId);
  res.once('close', () => {
    inFlight -= 1;
    const cut = !res.writableFinished;
    if (cut) left.abort(new DOMException('The client went away.', 'AbortError'));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    metricsHook?.finished({ pathname, method: req.method ?? 'GET', status: res.statusCode, seconds, cut, context });
  });
  // Draining (below): only health is answered (503 from its handler), so a load balancer takes this instance out.
  if (stoppedAt && !req.url?.startsWith('/api/health')) {
    res.writeHead(503, {
      'Content-Type': 'application/json; charset=utf-8',
      'Retry-After': '1',
      Connection: 'close',
      'Cache-Control': 'no-store',
    });
    return void res.end(
      errorBody(503, 'DRAINING', 'This portal instance is stopping. Try again: another one will answer.', context.requestId),
    );
  }
  req.headers[PEER_HEADER] = req.socket.remoteAddress ?? '';
  requestContext.run(context, () => {
    if (policy(req, res)) return;
    // The portal's API v1 for API tokens, answered before Next (docs/adr/0013).
    if (serveV1 && V1_PATH.test(pathname))
      return void serveV1(req, res).catch((error) => {
        logger.error({ component: 'http', reqId: context.requestId, err: error }, 'API v1 request failed');
        if (!res.headersSent)
          res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'private, no-store' });
        res.end(
          JSON.stringify({
            error: { code: 'INTERNAL', message: 'The portal hit an unexpected error.', requestId: `req_${context.requestId}` },
          }),
        );
      });
    handle(req, res).catch((error) => {
      logger.error({ component: 'http', reqId: context.requestId, err: error }, 'request failed');
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(errorBody(500, 'INTERNAL', 'The portal hit an unexpected error.', context.requestId));
    });
  });
});
server.keepAliveTimeout = 65_000; // longer than common load balancers' idle timeout (60 s)
server.listen(port, hostname, () => logger.info({ component: 'portal', port }, `listening on ${hostname ?? '*'}:${port}`));

// SIGTERM: drain — new requests answered 503 but health's (also 503, from lib/start/shutdown.ts's flag), loops
// stopped, the poller's lease released, running exports and runs given SHUTDOWN_GRACE_SECONDS — then exit.
// A second signal exits at once.
const stop = () => {
  // The same signal often comes twice at once (to the process group, and passed on by `npm start`): only a later one is a second.
  if (stoppedAt && Date.now() - stoppedAt > 1_000) process.exit(1);
  if (stoppedAt) return;
  stoppedAt = Date.now();
  const drained = handoff.shutdown?.() ?? Promise.resolve();
  drained.finally(() => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
