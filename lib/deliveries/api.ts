import 'server-only';
import { randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/record';
import type { PortalSession } from '../auth/session';
import { AppError, toAppError } from '../errors';
import { fromStore } from '../store';
import {
  deleteDelivery,
  findDelivery,
  insertDelivery,
  isDeliveryId,
  latestRuns,
  listDeliveries,
  listRuns,
  updateDelivery,
  type Delivery,
  type DeliveryChange,
  type Run,
} from '../store/deliveries';
import { folderProblem } from './destinations';
import { deliverySchema, invalidDelivery, issuesOf, runFilters, type DeliveryInput } from './input';
import { describeSchedule, nextRuns } from './schedule';
import { sealSecret } from './secrets';
import { deliveryRuntime } from './start';
import { targetProblem, webhookUrlProblem } from './targets';

/**
 * The deliveries API (GET/POST /api/deliveries, GET/PATCH/DELETE /api/deliveries/<id>, POST …/run,
 * GET …/runs), the one the /deliveries page uses too. Secrets go in, sealed, and never come out: answers
 * say only whether one is set.
 */

type User = PortalSession['user'];

/** A delivery as answers show it: no secret, the schedule in words, the next runs, the last run. */
export function deliveryView(d: Delivery, last: Run | undefined) {
  return {
    id: d.id,
    name: d.name,
    kind: d.kind,
    format: d.format,
    filters: d.filters,
    schedule: d.schedule,
    scheduleInWords: describeSchedule(d.schedule),
    nextRuns: d.paused ? [] : nextRuns(d.schedule, 3),
    destination: { ...d.destination, ...(d.destination.type === 'directory' ? {} : { secret: d.secret ? 'set' : 'not set' }) },
    hostKey: d.hostKey,
    paused: d.paused,
    pauseReason: d.pauseReason,
    failuresInARow: d.failures,
    lastRun: last ?? null,
    createdBy: d.createdBy,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

async function readBody(request: Request): Promise<Record<string, unknown>> {
  if (!/^application\/json\b/i.test(request.headers.get('content-type') ?? ''))
    throw invalidDelivery({ body: 'must be JSON (Content-Type: application/json)' });
  const text = await request.text();
  if (text.length > 64_000) throw invalidDelivery({ body: 'is too large' });
  try {
    const body: unknown = JSON.parse(text);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
    return body as Record<string, unknown>;
  } catch {
    throw invalidDelivery({ body: 'is not a JSON object' });
  }
}

const notFound = () => new AppError({ code: 'NOT_FOUND', message: 'There is no such delivery.' });

/** Checks a whole delivery; returns what to store: the destination without secrets, and the sealed secret. */
async function checked(
  input: unknown,
  existing: Delivery | null,
): Promise<{ value: DeliveryInput; destination: Delivery['destination']; secret: string | null }> {
  const runtime = deliveryRuntime();
  const parsed = deliverySchema.safeParse(input);
  if (!parsed.success) throw invalidDelivery(issuesOf(parsed.error));
  const value = parsed.data;
  try {
    runFilters(value.kind, value.filters, Date.now());
  } catch (error) {
    const failure = toAppError(error);
    throw invalidDelivery(
      Object.fromEntries(Object.entries(failure.details ?? { filters: failure.message }).map(([k, v]) => [`filters.${k}`, String(v)])),
    );
  }
  const d = value.destination;
  const sameType = existing?.destination.type === d.type;
  let secretPlain: string | null = null;
  let destination: Delivery['destination'];
  if (d.type === 'directory') {
    const problem = folderProblem(d.folder);
    if (problem) throw invalidDelivery({ 'destination.folder': problem });
    destination = { type: 'directory', folder: d.folder };
  } else if (d.type === 'sftp') {
    const problem = await targetProblem(d.host, runtime.allowPrivate);
    if (problem) throw invalidDelivery({ 'destination.host': problem });
    if (d.password && d.privateKey) throw invalidDelivery({ 'destination.password': 'give a password or a privateKey, not both' });
    if (d.password || d.privateKey) secretPlain = JSON.stringify(d.password ? { password: d.password } : { privateKey: d.privateKey });
    else if (!sameType || !existing?.secret) throw invalidDelivery({ 'destination.password': 'a password or a privateKey is required' });
    destination = { type: 'sftp', host: d.host, port: d.port, username: d.username, path: d.path };
  } else {
    const problem = webhookUrlProblem(d.url, runtime.allowPrivate) ?? (await targetProblem(new URL(d.url).hostname, runtime.allowPrivate));
    if (problem) throw invalidDelivery({ 'destination.url': problem });
    if (d.secret) secretPlain = d.secret;
    else if (!sameType || !existing?.secret) throw invalidDelivery({ 'destination.secret': 'is required (at least 16 characters)' });
    destination = { type: 'webhook', url: d.url };
  }
  if (secretPlain !== null && !runtime.secretKey)
    throw invalidDelivery({ destination: 'holds a secret, and DELIVERY_SECRET_KEY is not set on the server: secrets cannot be stored' });
  const secret = secretPlain !== null ? sealSecret(secretPlain, runtime.secretKey!) : sameType ? (existing?.secret ?? null) : null;
  return { value, destination, secret };
}

const nameTaken = () => new AppError({ code: 'DELIVERY_CONFLICT', message: 'Another delivery already has that name.' });
const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'Cache-Control': 'private, no-store' } });

export async function listResponse(): Promise<Response> {
  const [all, last] = await fromStore((db) => Promise.all([listDeliveries(db), latestRuns(db)]));
  return json({ data: all.map((d) => deliveryView(d, last.get(d.id))) });
}

export async function createResponse(request: Request, user: User): Promise<Response> {
  const { value, destination, secret } = await checked(await readBody(request), null);
  const now = Date.now();
  const id = `dlv_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const all = await fromStore(listDeliveries);
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
      createdBy: user.email,
      createdAt: new Date(now).toISOString(),
      updatedAt: new Date(now).toISOString(),
      lastDueMs: now,
    }),
  );
  await recordAudit({ actor: user.email, role: user.role, action: 'delivery.add', target: value.name, outcome: 'complete' });
  const created = (await fromStore((db) => findDelivery(db, id)))!;
  return json(deliveryView(created, undefined), 201);
}

async function existing(id: string): Promise<Delivery> {
  const found = isDeliveryId(id) ? await fromStore((db) => findDelivery(db, id)) : undefined;
  if (!found) throw notFound();
  return found;
}

export async function getResponse(id: string): Promise<Response> {
  const d = await existing(id);
  const [last] = await fromStore((db) => listRuns(db, id, 1));
  return json(deliveryView(d, last));
}

export async function patchResponse(id: string, request: Request, user: User): Promise<Response> {
  const current = await existing(id);
  const { paused, repinHostKey, ...body } = await readBody(request);
  if (paused !== undefined && typeof paused !== 'boolean') throw invalidDelivery({ paused: 'must be true or false' });
  if (repinHostKey !== undefined && repinHostKey !== true) throw invalidDelivery({ repinHostKey: 'must be true' });
  const merged = {
    name: current.name,
    kind: current.kind,
    format: current.format,
    filters: current.filters,
    schedule: current.schedule,
    destination: body.destination ?? current.destination,
    ...body,
  };
  const { value, destination, secret } = await checked(merged, current);
  if (value.name.toLowerCase() !== current.name.toLowerCase()) {
    const others = await fromStore(listDeliveries);
    if (others.some((d) => d.id !== id && d.name.toLowerCase() === value.name.toLowerCase())) throw nameTaken();
  }
  const moved =
    destination.type !== current.destination.type || (destination.type === 'sftp' && destination.host !== current.destination.host);
  // Another server, or a key the editor accepts as genuine: the next run pins the key it is offered.
  const change: DeliveryChange = { ...value, destination, secret, ...(moved || repinHostKey ? { hostKey: null } : {}) };
  // A new schedule starts from now: a due time of it that fell before the change is not run as "missed".
  if (value.schedule !== current.schedule) change.lastDueMs = Date.now();
  if (paused === true) Object.assign(change, { paused: true, pauseReason: `Paused by ${user.email}.` });
  // Resumed: the count of failures starts again, and due times missed while paused are not run.
  if (paused === false) Object.assign(change, { paused: false, pauseReason: null, failures: 0, lastDueMs: Date.now() });
  await fromStore((db) => updateDelivery(db, id, change));
  await recordAudit({ actor: user.email, role: user.role, action: 'delivery.change', target: value.name, outcome: 'complete' });
  return getResponse(id);
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
  return json({ run: { id: run.id, deliveryId: id, outcome: 'running' } }, 202);
}

export async function runsResponse(id: string): Promise<Response> {
  await existing(id);
  return json({ data: await fromStore((db) => listRuns(db, id, 200)) });
}
