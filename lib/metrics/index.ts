import 'server-only';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { processSlot } from '../process-state';
import { runningWalks } from '../draining';
import { feedGauges } from './feed';
import { jobMetrics } from './jobs';
import { builtRoutes, routeClass, routeMatcher } from './routes';
import { waitsBounded } from '../waits';
import { getStore } from '../store';
import { countSlots } from '../store/walk-slots';

/** The upstream gate's numbers now, read by the upstream client's gate when it is made (lib/picks-api/index.ts). */
export interface GateReadout {
  active: number;
  waiting: number;
  resumeAt: number;
}
const gateReadout = processSlot<() => GateReadout>('gateReadout');
export const readGateFrom = (read: () => GateReadout) => gateReadout.set(read);

/**
 * The portal's Prometheus metrics (prom-client), one registry per process (lib/process-state.ts), served at
 * /metrics by scripts/portal-server.mjs to a bearer of METRICS_TOKEN or on METRICS_LISTEN. Labels are route
 * patterns, endpoints, outcomes and kinds only: never a key, an email, an id or a filter value.
 * docs/operations.md#metrics lists every metric.
 */

function create() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'portal_process_' });
  // Gauges prom-client names like counters (promtool rejects them); the same figures stay, by type, in
  // portal_process_nodejs_active_handles, _requests and _resources.
  for (const total of ['handles', 'requests', 'resources']) registry.removeSingleMetric(`portal_process_nodejs_active_${total}_total`);
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
    classSeconds: new Histogram({
      name: 'portal_http_class_request_duration_seconds',
      help: 'Request duration by class of route (page, export, api_v1, stream: event streams of API v1, delivery, api, probe, asset) and whether it failed (status >= 500)',
      labelNames: ['class', 'failed'],
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
    upstreamRetries: new Counter({
      name: 'portal_upstream_retries_total',
      help: 'Upstream requests that were a retry (after a 429, a 5xx, a time-out or a network failure), by endpoint',
      labelNames: ['endpoint'],
      ...of,
    }),
    gateWait: new Histogram({
      name: 'portal_upstream_gate_wait_seconds',
      help: 'Time a request waited for a slot of the shared upstream gate (pauses after a 429 included), by lane (page, bulk, consumer)',
      labelNames: ['lane'],
      buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60],
      ...of,
    }),
    waits: new Counter({
      name: 'portal_waits_bounded_total',
      help: 'Waits that ran into their bound, by what was waited for (docs/architecture.md, "Waits and their bounds")',
      labelNames: ['wait'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [wait, n] of waitsBounded()) this.inc({ wait }, n);
      },
    }),
    gate: new Gauge({
      name: 'portal_upstream_gate',
      help: 'The shared upstream gate now: requests in flight, and waiting for a slot',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const stats = gateReadout.get()?.();
        this.set({ state: 'in_flight' }, stats?.active ?? 0);
        this.set({ state: 'queued' }, stats?.waiting ?? 0);
      },
    }),
    pause: new Gauge({
      name: 'portal_upstream_pause_seconds',
      help: 'Seconds left of the pause the upstream asked for (Retry-After), shared by every instance; 0: none',
      registers: [registry],
      collect() {
        this.set(Math.max(0, ((gateReadout.get()?.().resumeAt ?? 0) - Date.now()) / 1000));
      },
    }),
    walkSlots: new Gauge({
      name: 'portal_walk_slots_in_use',
      help: 'Walk slots (exports, coverage reports, delivery runs) held now in the store, every instance counted',
      registers: [registry],
      async collect() {
        this.set(await countSlots((await getStore()).db).catch(() => NaN));
      },
    }),
    walks: new Gauge({
      name: 'portal_walks_running',
      help: 'Exports, coverage reports and delivery runs running in this process',
      registers: [registry],
      collect() {
        this.set(runningWalks());
      },
    }),
    storeErrors: new Counter({ name: 'portal_store_errors_total', help: 'Store queries that failed', ...of }),
    storeSeconds: new Histogram({
      name: 'portal_store_query_duration_seconds',
      help: 'Store query duration',
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      ...of,
    }),
    ...feedGauges(registry),
    ...jobMetrics(registry),
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
    deliveryRunSeconds: new Histogram({
      name: 'portal_delivery_run_duration_seconds',
      help: 'Delivery run duration, by outcome',
      labelNames: ['outcome'],
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800],
      ...of,
    }),
    signIns: new Counter({
      name: 'portal_sign_ins_total',
      help: 'Sign-ins by outcome (complete, failed, throttled: refused by the sign-in limits)',
      labelNames: ['outcome'],
      ...of,
    }),
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
    changes: new Counter({ name: 'portal_feed_changes_total', help: 'Changes the feed found, by kind', labelNames: ['kind'], ...of }),
    alerts: new Counter({
      name: 'portal_alerts_sent_total',
      help: 'Alert sends by channel (email, webhook) and outcome',
      labelNames: ['channel', 'outcome'],
      ...of,
    }),
  };
}

export type Metrics = ReturnType<typeof create>;

export const metrics = (): Metrics => processSlot<Metrics>('metrics').once(create);

/** One request as scripts/portal-server.mjs saw it, by its route pattern (`metrics().route(pathname)`). */
export function observeRequest(route: string, method: string, status: number, durationSeconds: number, streamed = false): void {
  const m = metrics();
  m.http.inc({ route, method, status: String(status) });
  m.httpSeconds.observe({ route, method }, durationSeconds);
  m.classSeconds.observe({ class: streamed ? 'stream' : routeClass(route), failed: String(status >= 500) }, durationSeconds);
}

/** One store query (lib/store/open.ts's `observe`). */
export function observeStore(ms: number, failed: boolean): void {
  const m = metrics();
  m.storeSeconds.observe(ms / 1000);
  if (failed) m.storeErrors.inc();
}

/** A background job's run (lib/jobs/registry.ts, when metrics are on). */
export function observeJob(name: string, outcome: string, ms: number): void {
  metrics().jobSeconds.observe({ job: name, outcome }, ms / 1000);
}

/** The upstream endpoint of a request path, without ids: `/picks/:id`. */
export const upstreamEndpoint = (path: string) => (/^\/picks\/.+/.test(path) ? '/picks/:id' : path.split('?')[0]!);

export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  const m = metrics();
  return { contentType: m.registry.contentType, body: await m.registry.metrics() };
}
