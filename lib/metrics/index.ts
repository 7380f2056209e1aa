import 'server-only';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { once } from '../process-state';
import { builtRoutes, routeMatcher } from './routes';

/**
 * The portal's Prometheus metrics (prom-client), one registry per process (lib/process-state.ts), served at
 * /metrics by scripts/portal-server.mjs to a bearer of METRICS_TOKEN or on METRICS_LISTEN. Labels are route
 * patterns, endpoints, outcomes and kinds only: never a key, an email, an id or a filter value.
 * docs/operations.md#metrics lists every metric.
 */

function create() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'portal_process_' });
  const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
  const of = { registers: [registry] };
  return {
    registry,
    route: routeMatcher(builtRoutes()),
    http: new Counter({
      name: 'portal_http_requests_total',
      help: 'Requests by route pattern, method and status',
      labelNames: ['route', 'method', 'status'],
      ...of,
    }),
    httpSeconds: new Histogram({
      name: 'portal_http_request_duration_seconds',
      help: 'Request duration by route pattern and method',
      labelNames: ['route', 'method'],
      buckets: seconds,
      ...of,
    }),
    upstream: new Counter({
      name: 'portal_upstream_requests_total',
      help: 'Upstream requests by endpoint and outcome (ok, 401, 403, 429, 4xx, 5xx, timeout, network), retries included',
      labelNames: ['endpoint', 'outcome'],
      ...of,
    }),
    upstreamSeconds: new Histogram({
      name: 'portal_upstream_request_duration_seconds',
      help: 'Upstream request duration by endpoint',
      labelNames: ['endpoint'],
      buckets: seconds,
      ...of,
    }),
    exports: new Counter({
      name: 'portal_exports_total',
      help: 'Exports ended, by kind and outcome',
      labelNames: ['kind', 'outcome'],
      ...of,
    }),
    exportRecords: new Counter({
      name: 'portal_export_records_total',
      help: 'Records sent by exports, by kind',
      labelNames: ['kind'],
      ...of,
    }),
    exportBytes: new Counter({ name: 'portal_export_bytes_total', help: 'Bytes sent by exports, by kind', labelNames: ['kind'], ...of }),
    deliveryRuns: new Counter({
      name: 'portal_delivery_runs_total',
      help: 'Delivery runs ended, by outcome',
      labelNames: ['outcome'],
      ...of,
    }),
    signIns: new Counter({ name: 'portal_sign_ins_total', help: 'Sign-ins by outcome', labelNames: ['outcome'], ...of }),
    polls: new Counter({
      name: 'portal_feed_polls_total',
      help: 'Change-feed polls made by this instance, by outcome',
      labelNames: ['outcome'],
      ...of,
    }),
    pollSeconds: new Histogram({
      name: 'portal_feed_poll_duration_seconds',
      help: 'Change-feed poll duration',
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      ...of,
    }),
    watched: new Gauge({
      name: 'portal_feed_watched_records',
      help: 'Records the change feed watched at its last complete poll by this instance',
      ...of,
    }),
    changes: new Counter({ name: 'portal_feed_changes_total', help: 'Changes the feed found', ...of }),
    alerts: new Counter({
      name: 'portal_alerts_sent_total',
      help: 'Alert sends by channel (email, webhook) and outcome',
      labelNames: ['channel', 'outcome'],
      ...of,
    }),
  };
}

export type Metrics = ReturnType<typeof create>;

export const metrics = (): Metrics => once('metrics', create);

/** One request as scripts/portal-server.mjs saw it: its path is reduced to the route pattern here. */
export function observeRequest(pathname: string, method: string, status: number, durationSeconds: number): void {
  const m = metrics();
  const route = m.route(pathname);
  m.http.inc({ route, method, status: String(status) });
  m.httpSeconds.observe({ route, method }, durationSeconds);
}

/** The upstream endpoint of a request path, without ids: `/picks/:id`. */
export const upstreamEndpoint = (path: string) => (/^\/picks\/.+/.test(path) ? '/picks/:id' : path.split('?')[0]!);

export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  const m = metrics();
  return { contentType: m.registry.contentType, body: await m.registry.metrics() };
}
