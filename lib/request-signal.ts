import { requestContextSignal } from './process-state';

/**
 * The signal of the HTTP request being served, aborted when its client goes away before the answer is
 * complete. `scripts/portal-server.mjs` runs every request inside an AsyncLocalStorage holding it, so
 * code deep in a server component render (which Next does not abort when the browser leaves) can stop
 * its upstream calls. Undefined outside a request, or under another server.
 * Background work started from a request must not inherit it: give such work its own signal.
 */
export function requestSignal(): AbortSignal | undefined {
  return requestContextSignal();
}
