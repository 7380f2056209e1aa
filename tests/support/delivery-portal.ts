import { expectDescribed } from './described';
import { waitUntil, type Instance } from './instances';
import { E2E } from './ports';
import { startStaffPortal } from './staff-portal';

/** Portals of the delivery specs (tests/e2e/deliveries*.spec.ts): staff of every role, a sealing key, private targets allowed. */

export const SECRET_KEY = 'e2e-delivery-secret-key-0123456789abcdef';
const instances: Instance[] = [];

/** Starts a delivery portal; `stopDeliveryPortals` stops every one the spec started. */
export async function startDeliveryPortal(port: number, env: Record<string, string>, output?: string[]) {
  const instance = await startStaffPortal(port, {
    label: 'deliveries',
    roles: ['admin', 'editor', 'viewer', 'manager'],
    output,
    env: {
      AUTH_SECRET: 'deliveries-spec-secret-0123456789-abcdef',
      PORTAL_IMAGE_ORIGINS: `http://127.0.0.1:${E2E.sandboxPort}`,
      CHANGES_POLL_SECONDS: '0',
      DELIVERY_SECRET_KEY: SECRET_KEY,
      DELIVERY_ALLOW_PRIVATE_TARGETS: '1',
      DELIVERY_MIN_INTERVAL_MINUTES: '1', // the every-minute schedules below
      ...env,
    },
  });
  instances.push(instance);
  return instance;
}

export const stopDeliveryPortals = () => Promise.all(instances.splice(0).map((instance) => instance.stop()));

/** The portal's own API as one person calls it; every answer checked against the portal's OpenAPI document. */
export const api = (origin: string, cookie: string) => async (method: string, url: string, body?: unknown) => {
  const res = await fetch(`${origin}${url}`, {
    method,
    headers: { cookie, origin, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  await expectDescribed(origin, cookie, method, url, res, text);
  return { status: res.status, text, json: text ? (JSON.parse(text) as Record<string, any>) : null }; // eslint-disable-line @typescript-eslint/no-explicit-any
};

/** The run (the latest, or the one named) once it has ended. */
export async function runOf(call: ReturnType<typeof api>, id: string, runId?: string) {
  let found: Record<string, unknown> | undefined;
  await waitUntil(
    async () => {
      const runs = (await call('GET', `/api/deliveries/${id}/runs`)).json!.data as Record<string, unknown>[];
      found = runId ? runs.find((r) => r.id === runId) : runs[0];
      return found !== undefined && found.outcome !== 'running';
    },
    `run ${runId ?? ''} of ${id} to end`,
    100_000,
  );
  return found!;
}
