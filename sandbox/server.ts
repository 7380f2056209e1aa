import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generatePicks, lifecycleAt, startOfUtcDay, type SeedRecord } from './data';
import { variedMe, variedPick, type Shapes } from './shapes';
import { DEFAULT_FULL_KEY, demoLicences, REDUCED_NULLED, REDUCED_REMOVED, type Licence } from './licences';
import { logoSvg } from './logos';
import { LEAGUES } from './catalogue';
import { createControls, forcedAnswer, handleHook, type LicenceChange } from './hooks';
import { createLister } from './pages';
import { ApiError, sendJson, sendSvg } from './respond';
import { inLicence } from './scope';

/**
 * The sandbox upstream: a spec-faithful implementation of the Licensed Sports Picks API v1
 * (../shared/spec/picks-api-v1.md) over seeded data. A separate program; the portal never imports it.
 */

export interface SandboxOptions {
  picks?: number;
  seed?: number;
  fullKey?: string;
  /** The clock; tests freeze it so lifecycles and walks stay put. */
  now?: () => number;
  /** Start of the UTC day the data is laid around; defaults to today's. */
  anchorMs?: number;
  /** Default per-key budget; null turns throttling off. */
  rateLimit?: { limit: number; windowMs: number } | null;
  defaultPageSize?: number;
  /** /picks/:id answers wrapped in `data` or as a bare Pick: the spec allows both, so both are testable. */
  pickShape?: 'wrapped' | 'bare';
  /** Origin used in absolute logo URLs; defaults to the Host the request came to. */
  publicUrl?: string;
  /** Serve the test-only controls under /__sandbox/ (./hooks.ts): clock, retractions, edits, walk events. */
  testHooks?: boolean;
  /** How cursors behave: a place in a fixed order (default) or an offset (./hooks.ts says what moves them). */
  cursors?: 'position' | 'offset';
  /** `varied`: /me and names in the other shapes real data takes (./shapes.ts). */
  shapes?: Shapes;
}

export { MAX_PAGE_SIZE } from './query';
const DAY = 86_400_000;

export function createSandbox(options: SandboxOptions = {}) {
  const controls = createControls(options.now ?? Date.now);
  controls.cursors = options.cursors ?? 'position';
  const now = controls.now;
  const anchorMs = options.anchorMs ?? startOfUtcDay(now());
  const seed = options.seed ?? 20261122;
  const records = generatePicks({ count: options.picks ?? 8000, seed, anchorMs });
  const byId = new Map(records.map((r) => [r.id, r]));
  const licences = demoLicences(options.fullKey ?? DEFAULT_FULL_KEY);
  const byKey = new Map(licences.map((l) => [l.key, l]));
  const cursorSecret = createHmac('sha256', 'sandbox-cursor').update(String(seed)).digest();
  const defaultPageSize = options.defaultPageSize ?? 50;
  const pickShape = options.pickShape ?? 'wrapped';
  let rateLimit = options.rateLimit === undefined ? { limit: 600, windowMs: 60_000 } : options.rateLimit;
  const windows = new Map<string, { start: number; count: number }>();
  const stats = { requests: 0, throttled: 0, byRoute: {} as Record<string, number> };

  // Each licence's records, in upstream order: a cursor is a position in this list.
  const licensed = new Map<string, SeedRecord[]>(
    licences.map((licence) => [licence.key, records.filter((record) => inLicence(licence, record, anchorMs))]),
  );
  const listPage = createLister({ controls, licensed, defaultPageSize, cursorSecret, present });

  function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const requestId = `req_${randomBytes(8).toString('hex')}`;
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const origin = options.publicUrl ?? `http://${req.headers.host ?? 'localhost'}`;
    const fail = (error: unknown) => {
      const apiError = error instanceof ApiError ? error : new ApiError(500, 'INTERNAL', 'The sandbox failed.');
      if (!(error instanceof ApiError)) console.error('[sandbox]', error);
      const body = { error: { code: apiError.code, message: apiError.message, requestId } };
      return sendJson(res, apiError.status, body, requestId, apiError.headers);
    };
    if (options.testHooks && url.pathname.startsWith('/__sandbox/') && url.pathname !== '/__sandbox/stats') {
      return void handleHook(req, res, url.pathname, controls, (id) => byId.has(id), requestId, relicense).catch(fail);
    }
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'Only GET is supported.', { Allow: 'GET' });
      const logo = /^\/logos\/(teams|competitions)\/([a-z0-9-]{1,80})\.svg$/.exec(url.pathname);
      if (logo) return sendSvg(res, logoSvg(logo[2] ?? '', logo[1] === 'competitions'));
      if (url.pathname === '/__sandbox/stats')
        return sendJson(res, 200, { ...stats, records: records.length, anchor: new Date(anchorMs).toISOString() }, requestId);

      const route = matchRoute(url.pathname);
      stats.requests += 1;
      stats.byRoute[route.name] = (stats.byRoute[route.name] ?? 0) + 1;
      if (route.name !== 'health') {
        const forced = forcedAnswer(controls);
        if (forced) throw forced;
      }
      const licence = authenticate(req);
      throttle(licence);
      if (route.name === 'health')
        return sendJson(
          res,
          200,
          { status: 'ok', service: 'picks-api-sandbox', version: 'v1', time: new Date(now()).toISOString(), requestId },
          requestId,
        );
      if (!licence.active) throw new ApiError(403, 'LICENCE_UNAVAILABLE', 'Licence access is unavailable.');
      switch (route.name) {
        case 'me':
          const me = describeLicence(licence);
          return sendJson(res, 200, { ...(options.shapes === 'varied' ? variedMe(me) : me), requestId }, requestId);
        case 'picks':
        case 'results': {
          const page = listPage(licence, url.searchParams, route.name, origin);
          return sendJson(res, 200, { ...page, requestId }, requestId);
        }
        case 'pick': {
          const record = byId.get(route.id);
          const visible =
            record && inLicence(licence, record, anchorMs) && lifecycleAt(record, now()).published && !controls.retracted.has(record.id);
          if (!record || !visible) throw new ApiError(404, 'PICK_NOT_FOUND', 'No licensed pick has that id.');
          const pick = present(record, licence, origin);
          return sendJson(res, 200, pickShape === 'bare' ? pick : { data: pick, requestId }, requestId);
        }
      }
    } catch (error) {
      return fail(error);
    }
  }

  /** A key's licence changed while the sandbox runs (/__sandbox/licence): sports narrowed or widened, access suspended or given back. */
  function relicense(change: LicenceChange): Record<string, unknown> {
    const licence = byKey.get(change.key ?? options.fullKey ?? DEFAULT_FULL_KEY);
    if (!licence) throw new ApiError(404, 'NOT_FOUND', 'No licence has that key.');
    if (change.sports) {
      licence.sports = change.sports;
      licence.leagues = LEAGUES.filter((l) => change.sports!.includes(l.sport)).map((l) => l.league);
    }
    if (change.active !== undefined) licence.active = change.active;
    licensed.set(
      licence.key,
      records.filter((record) => inLicence(licence, record, anchorMs)),
    );
    return describeLicence(licence);
  }

  function matchRoute(pathname: string): { name: 'me' | 'picks' | 'results' | 'health' } | { name: 'pick'; id: string } {
    const fixed = { '/api/v1/me': 'me', '/api/v1/picks': 'picks', '/api/v1/results': 'results', '/api/v1/health': 'health' } as const;
    const name = fixed[pathname as keyof typeof fixed];
    if (name) return { name };
    const one = /^\/api\/v1\/picks\/([^/]+)$/.exec(pathname);
    if (one?.[1]) {
      try {
        return { name: 'pick', id: decodeURIComponent(one[1]) };
      } catch {
        throw new ApiError(404, 'PICK_NOT_FOUND', 'No licensed pick has that id.');
      }
    }
    throw new ApiError(404, 'NOT_FOUND', 'No such endpoint.');
  }

  function authenticate(req: http.IncomingMessage): Licence {
    const match = /^Bearer ([\x21-\x7e]+)$/.exec(req.headers.authorization ?? '');
    const licence = match?.[1] ? byKey.get(match[1]) : undefined;
    if (!licence) throw new ApiError(401, 'UNAUTHORIZED', 'Missing or invalid credentials.');
    return licence;
  }

  function throttle(licence: Licence) {
    const budget = licence.rateLimit ?? rateLimit;
    if (!budget || budget.limit <= 0) return;
    // A budget is of real time: with the records' clock frozen (SANDBOX_NOW) a window must still end.
    const at = Date.now();
    let window = windows.get(licence.key);
    if (!window || at - window.start >= budget.windowMs) windows.set(licence.key, (window = { start: at, count: 0 }));
    window.count += 1;
    if (window.count > budget.limit) {
      stats.throttled += 1;
      const retryAfter = Math.max(1, Math.ceil((window.start + budget.windowMs - at) / 1000));
      throw new ApiError(429, 'THROTTLED', 'Delivery throttled; retry later.', { 'Retry-After': String(retryAfter) });
    }
  }

  /** The record as the licence delivers it at this moment. */
  function present(record: SeedRecord, licence: Licence, origin: string, life = lifecycleAt(record, now())): Record<string, unknown> {
    const pick: Record<string, unknown> = {
      ...record.body,
      status: life.status,
      result: life.result,
      settledAt: life.settledAt,
      publishedAt: life.publishedAt,
    };
    const edit = controls.edits.get(record.id);
    if (edit) {
      Object.assign(pick, edit.fields);
      if (edit.atMs > Date.parse(life.publishedAt)) pick.publishedAt = new Date(edit.atMs).toISOString();
    }
    for (const key of ['homeTeamLogoUrl', 'awayTeamLogoUrl', 'homeLogoUrl', 'awayLogoUrl'] as const) {
      if (typeof pick[key] === 'string') pick[key] = origin + pick[key];
    }
    if (!record.league.relativeLogo) pick.competitionLogoUrl = origin + String(pick.competitionLogoUrl);
    if (licence.contentMode === 'reduced') {
      for (const key of REDUCED_REMOVED) delete pick[key];
      for (const key of REDUCED_NULLED) pick[key] = null;
    }
    return options.shapes === 'varied' ? variedPick(pick) : pick;
  }

  function describeLicence(licence: Licence) {
    const window = licence.windowDays && {
      from: new Date(anchorMs + licence.windowDays.from * DAY).toISOString(),
      to: new Date(anchorMs + licence.windowDays.to * DAY).toISOString(),
    };
    return {
      partner: licence.partner,
      licence: {
        id: licence.licenceId,
        status: licence.active ? 'active' : 'suspended',
        sports: licence.sports,
        leagues: licence.leagues,
        dateWindow: window ?? null,
        contentMode: licence.contentMode,
        channels: licence.channels,
        startsAt: new Date(anchorMs - 365 * DAY).toISOString(),
        expiresAt: new Date(anchorMs + 180 * DAY).toISOString(),
      },
    };
  }

  const server = http.createServer(handle);
  server.keepAliveTimeout = 65_000;

  return {
    server,
    records,
    licences,
    stats,
    anchorMs,
    /** The test-only controls (./hooks.ts), for tests that run the sandbox in-process. */
    controls,
    /** Change the default throttle while running (tests turn it on and off). */
    setRateLimit(next: { limit: number; windowMs: number } | null) {
      rateLimit = next;
      windows.clear();
    },
    async listen(port = 0, host = '127.0.0.1'): Promise<string> {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      const address = server.address() as AddressInfo;
      return `http://${host}:${address.port}`;
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type Sandbox = ReturnType<typeof createSandbox>;
