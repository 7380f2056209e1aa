import 'server-only';
import { getRecentHealth } from '../picks-api/portal';
import { storeAnswers } from '../store';

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

export async function healthResponse(): Promise<Response> {
  const [store, api] = await Promise.all([storeAnswers(), upstreamState()]);
  const body = { status: store ? 'ok' : 'unavailable', store: store ? 'ok' : 'unreachable', upstream: api };
  return Response.json(body, { status: store ? 200 : 503, headers: { 'Cache-Control': 'no-store' } });
}
