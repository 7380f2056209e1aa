import 'server-only';
import { AppError } from '../errors';
import { log } from '../log';
import type { Delivery } from '../store/deliveries';
import { openSecret, secretBinding } from './secrets';
import { probeS3, s3Host, type ProbeStep } from './s3';
import { pinTarget, type Resolver } from './targets';
import { probeTable, type PgDestination } from './pg-table';
import { probeSftp, probeWebhook } from './probe-network';
import type { PrivateTargets } from './targets';

/**
 * "Test connection" (POST /api/deliveries/<id>/test): tries a delivery's destination without delivering, with the
 * credentials and the address policy a run uses: object storage, a PostgreSQL table, an SFTP server and a webhook
 * receiver (./probe-network.ts). A folder on this server needs none.
 */

export interface ProbeContext {
  allowPrivate: PrivateTargets;
  secretKey: string | null;
  resolver?: Resolver;
}

export async function probeDelivery(delivery: Delivery, context: ProbeContext): Promise<{ ok: boolean; steps: ProbeStep[] }> {
  const tried = await probeRaw(delivery, context);
  return { ok: tried.ok, steps: tried.steps.map((step) => inPlainWords(delivery, step)) };
}

/** Words for a failure that say nothing of the network beyond what the person typed. */
const NETWORK =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|ENOTFOUND|EAI_AGAIN|socket hang up|terminated unexpectedly|timeout|timed out|connect|TimeoutError|EPROTO|other side closed/i;
const ADDRESS = /\[?(?:\d{1,3}\.){3}\d{1,3}\]?(?::\d{1,5})?|\[[0-9a-f:]+\](?::\d{1,5})?/gi;

/**
 * A step as the person sees it: whether a port is closed, filtered or open to something else is not told apart (a
 * refused, reset, timed-out or cut-short connection all read "could not connect"), and no address or port is named
 * but those typed. The words as met are kept in the server's log.
 */
function inPlainWords(delivery: Delivery, step: ProbeStep): ProbeStep {
  if (step.ok || step.step === 'address' || step.step === 'credentials') return step;
  const d = delivery.destination;
  // SFTP and webhook steps are said in their own words (./probe-network.ts), naming only what was typed.
  if (d.type === 'sftp' || d.type === 'webhook') {
    const typed = d.type === 'webhook' ? new URL(String(d.url)).host : `${String(d.host)}:${Number(d.port ?? 22)}`;
    return { ...step, detail: step.detail.replace(ADDRESS, (found) => (typed.includes(found) ? found : 'the server')) };
  }
  const typed =
    d.type === 'postgres'
      ? `${String(d.host)}:${Number(d.port)}`
      : d.endpoint
        ? new URL(String(d.endpoint)).host
        : `the bucket's region (${String(d.region)})`;
  log('deliveries').warn({ delivery: delivery.id, step: step.step, detail: step.detail }, 'a connection test failed');
  if (NETWORK.test(step.detail) && !/password|authentication|permission|denied|does not exist/i.test(step.detail))
    return {
      ...step,
      detail: `could not connect to ${typed}: nothing there answered as ${d.type === 'postgres' ? 'a PostgreSQL server' : 'object storage'} in time. Check the host and port, and that this portal may reach them`,
    };
  return { ...step, detail: step.detail.replace(ADDRESS, (found) => (typed.includes(found) ? found : 'the server')) };
}

async function probeRaw(delivery: Delivery, context: ProbeContext): Promise<{ ok: boolean; steps: ProbeStep[] }> {
  const d = delivery.destination;
  if (d.type === 'postgres') return probePostgres(delivery, context);
  if (d.type === 'sftp' || d.type === 'webhook') return probeNetwork(delivery, context);
  if (d.type !== 's3')
    throw new AppError({
      code: 'INVALID_DELIVERY',
      message: 'A folder on this server needs no connection test: Run now writes into it.',
    });
  const where = { bucket: String(d.bucket), region: String(d.region), endpoint: (d.endpoint as string | null) ?? null };
  const steps: ProbeStep[] = [];
  const pinned = await addressStep(s3Host(where), context, steps);
  if (!pinned.ok) return { ok: false, steps };
  const secretAccessKey = opened<{ secretAccessKey: string }>(delivery, context, steps)?.secretAccessKey;
  if (secretAccessKey === undefined) return { ok: false, steps };
  steps.push(
    ...(await probeS3({ ...where, prefix: String(d.prefix ?? ''), accessKeyId: String(d.accessKeyId), secretAccessKey, address: pinned })),
  );
  return { ok: steps.every((s) => s.ok), steps };
}

/** The stored secret opened for this destination, or the failure said as a step. */
function opened<T>(delivery: Delivery, context: ProbeContext, steps: ProbeStep[]): T | undefined {
  try {
    if (!delivery.secret || !context.secretKey) throw new Error('no secret is stored, or DELIVERY_SECRET_KEY is not set');
    return JSON.parse(openSecret(delivery.secret, context.secretKey, secretBinding(delivery.destination))) as T;
  } catch (error) {
    steps.push({ step: 'credentials', ok: false, detail: (error as Error).message });
    return undefined;
  }
}

async function probePostgres(delivery: Delivery, context: ProbeContext): Promise<{ ok: boolean; steps: ProbeStep[] }> {
  const d = delivery.destination as unknown as PgDestination;
  const steps: ProbeStep[] = [];
  const pinned = await addressStep(d.host, context, steps);
  if (!pinned.ok) return { ok: false, steps };
  const password = opened<{ password: string }>(delivery, context, steps)?.password;
  if (password === undefined) return { ok: false, steps };
  steps.push(...(await probeTable({ ...d, password, address: pinned })));
  return { ok: steps.every((s) => s.ok), steps };
}

/** SFTP and webhooks: where the host resolves, the stored secret opened (SFTP), then the server itself. */
async function probeNetwork(delivery: Delivery, context: ProbeContext): Promise<{ ok: boolean; steps: ProbeStep[] }> {
  const d = delivery.destination;
  const steps: ProbeStep[] = [];
  const host = d.type === 'webhook' ? new URL(String(d.url)).hostname : String(d.host);
  const pinned = await addressStep(host, context, steps);
  if (!pinned.ok) return { ok: false, steps };
  if (d.type === 'webhook') steps.push(...(await probeWebhook(String(d.url), pinned)));
  else {
    const secret = opened<{ password?: string; privateKey?: string }>(delivery, context, steps);
    if (secret === undefined) return { ok: false, steps };
    steps.push(
      ...(await probeSftp({
        host,
        address: pinned,
        port: Number(d.port ?? 22),
        username: String(d.username),
        ...secret,
        path: String(d.path ?? '.'),
        hostKey: delivery.hostKey,
      })),
    );
  }
  return { ok: steps.every((s) => s.ok), steps };
}

/** The address policy a run applies, said as the first step: where the host resolves, or why it is refused. */
async function addressStep(host: string, context: ProbeContext, steps: ProbeStep[]) {
  const pinned = await pinTarget(host, context.allowPrivate, context.resolver);
  steps.push({ step: 'address', ok: pinned.ok, detail: pinned.ok ? `${host} may be delivered to` : pinned.problem });
  return pinned;
}
