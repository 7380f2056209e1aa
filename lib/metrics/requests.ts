import 'server-only';
import type { PortalConfig } from '../config';
import { metrics, observeRequest } from '.';
import type { FinishedRequest } from '../process-state';
import { log } from '../log';

export type { FinishedRequest };

// Probes and Next's assets: every few seconds from a load balancer, or dozens per page; their lines are debug.
const quiet = (pathname: string) => pathname.startsWith('/api/health') || pathname.startsWith('/_next/');

/**
 * What happens when a request has been answered: its metrics (when somebody can read them: METRICS_TOKEN or
 * METRICS_LISTEN set) and its log line — the portal's request id, route pattern, method, status, duration,
 * the role of who asked (their email only with LOG_USERS=1) and the upstream request ids it caused.
 */
export function requestFinisher(config: PortalConfig): (request: FinishedRequest) => void {
  const http = log('http');
  const counted = Boolean(config.METRICS_TOKEN || config.METRICS_LISTEN);
  const users = config.LOG_USERS;
  const lines = config.LOG_REQUESTS;
  return ({ pathname, method, status, seconds, cut, context }) => {
    // Beside the sandbox (LOG_REQUESTS unset) the lines of answered requests are debug: the terminal stays readable.
    const level = status >= 500 ? 'error' : quiet(pathname) || !lines ? 'debug' : 'info';
    const logged = http.isLevelEnabled(level);
    if (!counted && !logged) return;
    const route = metrics().route(pathname);
    if (counted) observeRequest(route, method, status, seconds, context.streamed === true);
    if (!logged) return;
    const { user, upstream, requestId } = context;
    http[level](
      {
        reqId: requestId,
        method,
        route,
        status,
        ms: Math.round(seconds * 10_000) / 10,
        role: user?.role ?? null,
        ...(users && user ? { user: user.email } : {}),
        ...(upstream.length > 0 ? { upstream } : {}),
        ...(cut ? { cut: true } : {}),
      },
      `${method} ${route} ${status}`,
    );
  };
}
