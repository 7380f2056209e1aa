// The portal's production HTTP server (what `npm start` runs): Next's own request handler behind a
// plain Node server, for one reason: the portal must know the socket's peer address, which `next start`
// does not pass on (it keeps any X-Forwarded-For a client sends). The address goes into one header,
// always overwritten, and lib/auth/client-address.ts believes that header only in a process marked here.
// It also gives every request an AbortSignal that fires when the client leaves early (lib/request-signal.ts):
// Next does not abort a server component render then, and the render's upstream calls should stop.
// Before Next sees a request it meets the portal's request policy (lib/request-policy.ts: CSP nonce, HSTS,
// the sign-in redirect), which the app's instrumentation installs at start from the validated configuration.
// `npm run dev` runs this server too (NODE_ENV=development), so development meets the same policy.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer } from 'node:http';
import next from 'next';

const PEER_HEADER = 'x-portal-peer-address'; // the same name as in lib/auth/client-address.ts
const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.PORTAL_LISTEN_HOST || undefined;

globalThis.__portalPeerHeader = PEER_HEADER;
const requestContext = (globalThis.__portalRequestContext = new AsyncLocalStorage());
const dev = process.env.NODE_ENV === 'development';
const installed = new Promise((resolve) => (globalThis.__portalRequestPolicyInstalled = resolve));
const app = next({ dev, port, hostname: hostname ?? 'localhost' });
const handle = app.getRequestHandler();
await app.prepare();
// Next runs instrumentation during prepare or just after it: nothing is served before the policy is in place.
let waiting;
const policy = await Promise.race([installed, new Promise((resolve) => (waiting = setTimeout(resolve, 120_000)))]);
clearTimeout(waiting);
if (typeof policy !== 'function') {
  console.error('[portal] the request policy was not installed (instrumentation did not run): not serving without it.');
  process.exit(1);
}

const server = createServer((req, res) => {
  req.headers[PEER_HEADER] = req.socket.remoteAddress ?? '';
  if (policy(req, res)) return;
  const left = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) left.abort(new DOMException('The client went away.', 'AbortError'));
  });
  requestContext
    .run({ signal: left.signal }, () => handle(req, res))
    .catch((error) => {
      console.error('[portal] request failed:', error?.name ?? 'Error');
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Internal error');
    });
});
server.keepAliveTimeout = 65_000; // longer than common load balancers' idle timeout (60 s)
server.listen(port, hostname, () => console.log(`[portal] listening on ${hostname ?? '*'}:${port}`));

const stop = () => {
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 5_000).unref(); // streams still open after 5 s are cut
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
