import 'server-only';
import type { z } from 'zod';
import type { runsAnswerSchema, runStartedSchema } from '../vocabulary/delivery-run';
import { readJsonObject } from '../net/json-body';
import { randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/record';
import { takeAction } from '../auth/action-rates';
import type { PortalSession } from '../auth/principal';
import { AppError } from '../errors';
import { fromStore } from '../store';
import {
  deleteDelivery,
  findDelivery,
  insertDelivery,
  isDeliveryId,
  listDeliveries,
  listRuns,
  updateDelivery,
  type Delivery,
  type DeliveryChange,
} from '../store/deliveries';
import { checkDelivery } from '../deliveries/check';
import { destinationAsGiven } from '../deliveries/pg-connection';
import { filterVocabulary } from '../deliveries/filter-rules';
import { previewDelivery } from '../deliveries/preview';
import { probeDelivery } from '../deliveries/probe';
import { invalidDelivery } from '../deliveries/input';
import { tooManyDeliveries } from '../deliveries/limits';
import { deliveryRuntime } from '../deliveries/start';
import { deliveryView, deliveryViews, EMPTY_RUNS_ALERT } from '../deliveries/view';
import { emptyStreaks } from '../store/delivery-runs';

/**
 * The deliveries API (GET/POST /api/deliveries, GET/PATCH/DELETE /api/deliveries/<id>, POST …/run,
 * GET …/runs), the one the /deliveries page uses too. Secrets go in, sealed, and never come out: answers
 * say only whether one is set.
 */

type User = PortalSession['user'];

const readBody = (request: Request) => readJsonObject(request, 64_000, invalidDelivery);

const notFound = () => new AppError({ code: 'NOT_FOUND', message: 'There is no such delivery.' });

const nameTaken = () => new AppError({ code: 'DELIVERY_CONFLICT', message: 'Another delivery already has that name.' });
const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'Cache-Control': 'private, no-store' } });

export async function listResponse(user: User): Promise<Response> {
  return json({ data: await deliveryViews(user.email) });
}

export async function createResponse(request: Request, user: User): Promise<Response> {
  const runtime = deliveryRuntime();
  const body = await readBody(request);
  const all = await fromStore(listDeliveries);
  const tooMany = tooManyDeliveries(all.filter((d) => d.createdBy === user.email).length, runtime.limits.maxPerUser);
  if (tooMany) throw invalidDelivery({ delivery: tooMany });
  const { value, destination, secret, hostKey, encryptTo } = await checkDelivery(body, null, {
    ...runtime,
    vocabulary: await filterVocabulary(),
  });
  const now = Date.now();
  const id = `dlv_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  if (all.some((d) => d.name.toLowerCase() === value.name.toLowerCase())) throw nameTaken();
  await fromStore((db) =>
    insertDelivery(db, {
      id,
      name: value.name,
      kind: value.kind,
      format: value.format,
      filters: value.filters,
      schedule: value.schedule,
      destination,
      secret,
      encryptTo: encryptTo ?? null,
      corrections: value.corrections ?? false,
      createdBy: user.email,
      createdAt: new Date(now).toISOString(),
      updatedAt: new Date(now).toISOString(),
      lastDueMs: now,
    }),
  );
  if (hostKey) await fromStore((db) => updateDelivery(db, id, { hostKey }));
  await recordAudit({ actor: user.email, role: user.role, action: 'delivery.add', target: value.name, outcome: 'complete' });
  const created = (await fromStore((db) => findDelivery(db, id)))!;
  return json(deliveryView(created, undefined, user.email), 201);
}

async function existing(id: string): Promise<Delivery> {
  const found = isDeliveryId(id) ? await fromStore((db) => findDelivery(db, id)) : undefined;
  if (!found) throw notFound();
  return found;
}

export async function getResponse(id: string, user: User): Promise<Response> {
  const d = await existing(id);
  const [[last], empty] = await fromStore((db) => Promise.all([listRuns(db, id, 1), emptyStreaks(db, EMPTY_RUNS_ALERT, id)]));
  return json(deliveryView(d, last, user.email, empty.get(id)));
}

export async function patchResponse(id: string, request: Request, user: User): Promise<Response> {
  const current = await existing(id);
  const { paused, repinHostKey, ...body } = await readBody(request);
  if (paused !== undefined && typeof paused !== 'boolean') throw invalidDelivery({ paused: 'must be true or false' });
  if (repinHostKey !== undefined && repinHostKey !== true) throw invalidDelivery({ repinHostKey: 'must be true' });
  // Trusting whatever key answers next is an admin's call; an editor can give the new fingerprint instead.
  if (repinHostKey && user.role !== 'admin')
    throw new AppError({
      code: 'FORBIDDEN',
      message: "Only an admin may clear a pinned host key. Give the server's new fingerprint as destination.hostKey instead.",
    });
  const merged = {
    name: current.name,
    kind: current.kind,
    format: current.format,
    filters: current.filters,
    schedule: current.schedule,
    destination: body.destination ?? destinationAsGiven(current.destination),
    ...body,
  };
  // Filters are held to the licence when they are sent: a pause must not fail because the licence moved since.
  const changesFilters = 'filters' in body || 'kind' in body;
  const { value, destination, secret, hostKey, encryptTo } = await checkDelivery(merged, current, {
    ...deliveryRuntime(),
    vocabulary: changesFilters ? await filterVocabulary() : undefined,
  });
  if (value.name.toLowerCase() !== current.name.toLowerCase()) {
    const others = await fromStore(listDeliveries);
    if (others.some((d) => d.id !== id && d.name.toLowerCase() === value.name.toLowerCase())) throw nameTaken();
  }
  const moved =
    destination.type !== current.destination.type ||
    (destination.type === 'sftp' && (destination.host !== current.destination.host || destination.port !== current.destination.port));
  // A fingerprint given is pinned; another server, or an admin's re-pin, pins the key of the next handshake.
  const { encryptTo: _given, ...fields } = value;
  const change: DeliveryChange = {
    ...fields,
    destination,
    secret,
    ...(encryptTo !== undefined ? { encryptTo } : {}),
    ...(hostKey ? { hostKey } : moved || repinHostKey ? { hostKey: null } : {}),
  };
  // A new schedule starts from now: a due time of it that fell before the change is not run as "missed".
  if (value.schedule !== current.schedule) change.lastDueMs = Date.now();
  if (paused === true) Object.assign(change, { paused: true, pauseReason: `Paused by ${user.email}.` });
  // Resumed: the count of failures starts again, and due times missed while paused are not run.
  if (paused === false) Object.assign(change, { paused: false, pauseReason: null, failures: 0, lastDueMs: Date.now() });
  await fromStore((db) => updateDelivery(db, id, change));
  await recordAudit({ actor: user.email, role: user.role, action: 'delivery.change', target: value.name, outcome: 'complete' });
  return getResponse(id, user);
}

export async function deleteResponse(id: string, user: User): Promise<Response> {
  const current = await existing(id);
  await fromStore((db) => deleteDelivery(db, id));
  await recordAudit({ actor: user.email, role: user.role, action: 'delivery.remove', target: current.name, outcome: 'complete' });
  return new Response(null, { status: 204, headers: { 'Cache-Control': 'private, no-store' } });
}

export async function runResponse(id: string): Promise<Response> {
  const current = await existing(id);
  const runtime = deliveryRuntime();
  if (!runtime.context) throw new AppError({ code: 'DELIVERY_NOT_READY', message: 'Deliveries do not run on this portal process.' });
  const run = await fromStore(async () => runtime.runNow(current));
  const started: z.infer<typeof runStartedSchema> = { run: { id: run.id, deliveryId: id, outcome: 'running' } };
  return json(started, 202);
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
};

/** Tries the destination without delivering (./probe.ts): each step and how it went. Audited. */
export async function testResponse(id: string, user: User): Promise<Response> {
  const current = await existing(id);
  const d = current.destination;
  // Limited per person and per server tried (a webhook's by its URL's host): a test cannot be made into a scan of ports.
  const server = d.type === 'webhook' ? hostOf(String(d.url)) : (d.host ?? d.endpoint ?? d.bucket);
  await takeAction('delivery.test', user.email, `${d.type}:${String(server ?? current.id)}`);
  const runtime = deliveryRuntime();
  const result = await probeDelivery(current, { allowPrivate: runtime.allowPrivate, secretKey: runtime.secretKey });
  await recordAudit({
    actor: user.email,
    role: user.role,
    action: 'delivery.test',
    target: current.name,
    outcome: result.ok ? 'complete' : 'failed',
  });
  return json(result);
}

export async function runsResponse(id: string): Promise<Response> {
  await existing(id);
  const runs = await fromStore((db) => listRuns(db, id, 200));
  // A run that completed with 0 records is said to be empty: its filters matched nothing.
  const body: z.infer<typeof runsAnswerSchema> = {
    data: runs.map((run) => ({ ...run, empty: run.outcome === 'complete' && run.records === 0 })),
  };
  return json(body);
}

/** GET /api/deliveries/preview?kind=&<filters>: how many records the filters match now (lib/deliveries/preview.ts). */
export async function previewResponse(request: Request, user: User): Promise<Response> {
  return json(await previewDelivery(new URL(request.url).searchParams, user.email, request.signal));
}
