import 'server-only';
import { getRecentHealth } from '../picks-api/portal';
import { storeAnswers } from '../store';
import { isDraining } from '../draining';
import type { z } from 'zod';
import type { healthSchema, liveSchema, readySchema } from '../health/answers';

/**
 * What GET /api/health tells a load balancer: whether this instance's store answers (503 when not: the
 * instance cannot sign anyone in) and whether the upstream does (reported, but not a reason to take the
 * instance out: every instance shares the same upstream). The upstream's answer is reused for a few
 * seconds, so frequent probes do not become upstream traffic. Nothing private: no key, no address.
 */

type UpstreamState = 'ok' | 'throttled' | 'unreachable';

async function upstreamState(): Promise<UpstreamState> {
  const settled = await getRecentHealth().health;
  return settled.ok ? 'ok' : settled.error.code === 'THROTTLED' ? 'throttled' : 'unreachable';
}

type Probe = z.infer<typeof healthSchema> | z.infer<typeof liveSchema> | z.infer<typeof readySchema>;

const answer = (body: Probe, ok: boolean) => Response.json(body, { status: ok ? 200 : 503, headers: { 'Cache-Control': 'no-store' } });

export async function healthResponse(): Promise<Response> {
  if (isDraining()) return answer({ status: 'draining', store: 'ok', upstream: 'ok' }, false);
  const [store, api] = await Promise.all([storeAnswers(), upstreamState()]);
  return answer({ status: store ? 'ok' : 'unavailable', store: store ? 'ok' : 'unreachable', upstream: api }, store);
}

/** Liveness: the process answers; a load balancer or supervisor restarts it only when this fails. */
export function liveResponse(): Response {
  return answer({ status: 'live' }, true);
}

/**
 * Readiness: this instance should be sent requests — its store answers (the store is opened only with its
 * migrations applied, lib/store/open.ts) and it is not draining after SIGTERM. The upstream is not asked.
 */
export async function readyResponse(): Promise<Response> {
  if (isDraining()) return answer({ status: 'draining' }, false);
  const store = await storeAnswers();
  return answer({ status: store ? 'ready' : 'unavailable', store: store ? 'ok' : 'unreachable' }, store);
}
