import 'server-only';
import { randomBytes } from 'node:crypto';
import { SECRET_KEY_UNSET } from '../deliveries/secrets';
import { recordAudit } from '../audit/record';
import type { PortalSession } from '../auth/principal';
import { getConfig } from '../config';
import { maskedWebhookUrl } from '../deliveries/targets';
import { AppError } from '../errors';
import { hashAtOrBefore, readEventsAfter } from '../events/read';
import { readJsonObject } from '../net/json-body';
import { fromStore } from '../store';
import { lastEventSeq } from '../store/events';
import type { ApiToken } from '../store/tokens';
import {
  deleteTokenWebhook,
  findTokenWebhook,
  insertTokenWebhook,
  logAttempt,
  saveTokenWebhook,
  tokenWebhooks,
  webhookAttempts,
  type TokenWebhook,
} from '../store/token-webhooks';
import { visibleToken } from '../tokens/read';
import { takeAction } from '../auth/action-rates';
import { checkEndpoint, invalidEndpoint, newEndpoint, openEndpointSecret } from '../webhooks/input';
import { chargeRecord, chargeRequest, tokenQuota, mustHaveRecords } from '../webhooks/quota';
import { attemptOf, eventMessage, sendMessage, testMessage, type Message } from '../webhooks/send';
import { attemptView, ATTEMPTS_SHOWN, endpointView, endpointViews, type EndpointSaved } from '../webhooks/view';
import { awaitingOwner } from '../webhooks/confirm';
import { tokenPause } from '../webhooks/worker';

/**
 * /api/tokens/<id>/webhooks (GET, POST), /api/tokens/<id>/webhooks/<wid> (GET, PATCH, DELETE), …/<wid>/test and
 * …/<wid>/resend (POST): a token's consumer webhooks, for its owner and admins (as the token itself). A new
 * endpoint starts at the feed's newest event (what comes next); "resend every event after N" moves it back. Every
 * change, test and resend is audited; answers never carry the secret (but once, when the portal made it) or the
 * URL's path.
 */

type User = PortalSession['user'];
const MAX_BODY = 8_192;
const MAX_PER_TOKEN = 5;

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'Cache-Control': 'private, no-store' } });
const notFound = (what: string) => new AppError({ code: 'NOT_FOUND', message: `There is no such ${what}.` });
const readBody = (request: Request) =>
  readJsonObject(
    request,
    MAX_BODY,
    invalidEndpoint,
    () => new AppError({ code: 'PAYLOAD_TOO_LARGE', message: `A webhook is at most ${MAX_BODY} bytes.` }),
  );
const context = () => {
  const config = getConfig();
  return { secretKey: config.DELIVERY_SECRET_KEY ?? null, allowPrivate: config.DELIVERY_ALLOW_PRIVATE_TARGETS };
};

export async function tokenOf(user: User, id: string): Promise<ApiToken> {
  const token = await visibleToken(user, id);
  if (!token) throw notFound('token');
  return token;
}

export async function endpointOf(user: User, tokenId: string, id: string): Promise<{ token: ApiToken; hook: TokenWebhook }> {
  const token = await tokenOf(user, tokenId);
  const hook = /^twh_[0-9a-f]{12}$/.test(id) ? await fromStore((db) => findTokenWebhook(db, id)) : null;
  if (!hook || hook.tokenId !== token.id) throw notFound('webhook');
  return { token, hook };
}

const audit = (
  user: User,
  action: 'add' | 'change' | 'remove' | 'resend' | 'test' | 'confirm',
  token: ApiToken,
  hook: TokenWebhook,
  extra: Record<string, string> = {},
) =>
  recordAudit({
    actor: user.email,
    role: user.role,
    action: `token.webhook.${action}`,
    target: `${token.name} (${token.id}) webhook ${hook.id}`,
    filters: { url: maskedWebhookUrl(hook.url), kinds: hook.kinds.join(' '), ...extra },
    outcome: 'complete',
  });

/** Refuses what needs the token to act now (a test, a resend, a new endpoint) when it may not, or the webhook waits for its owner. */
async function mustAct(token: ApiToken, hook?: TokenWebhook): Promise<void> {
  const paused = await fromStore((db) => tokenPause(db, token, Date.now()));
  if (paused) throw invalidEndpoint({ token: `cannot send now: ${paused.replace(/^its token/, 'it')}` });
  const awaiting = hook ? await fromStore((db) => awaitingOwner(db, hook, token)) : null;
  if (awaiting) throw invalidEndpoint({ webhook: `cannot send now: ${awaiting.replace(/^its token/, 'this token')}` });
}

export async function endpointsResponse(request: Request, user: User, tokenId: string): Promise<Response> {
  const token = await tokenOf(user, tokenId);
  if (request.method === 'GET') return json({ data: await fromStore((db) => endpointViews(db, token, user.email)) });
  const body = await readBody(request);
  await mustAct(token);
  const existing = await fromStore((db) => tokenWebhooks(db, token.id));
  if (existing.length >= MAX_PER_TOKEN) throw invalidEndpoint({ webhook: `this token has ${MAX_PER_TOKEN} already, the most allowed` });
  const id = `twh_${randomBytes(6).toString('hex')}`;
  const checked = await checkEndpoint(body, null, id, context());
  const hook = newEndpoint(id, token.id, checked, user.email, await fromStore(lastEventSeq));
  await fromStore((db) => insertTokenWebhook(db, hook));
  await audit(user, 'add', token, hook);
  return json({ ...endpointView(hook, [], hook.cursor, null), secret: checked.shownSecret } satisfies EndpointSaved, 201);
}

export async function endpointResponse(request: Request, user: User, tokenId: string, id: string): Promise<Response> {
  const { token, hook } = await endpointOf(user, tokenId, id);
  if (request.method === 'GET') return json((await fromStore((db) => endpointViews(db, token, user.email))).find((e) => e.id === id));
  if (request.method === 'DELETE') {
    await fromStore((db) => deleteTokenWebhook(db, id));
    await audit(user, 'remove', token, hook);
    return new Response(null, { status: 204, headers: { 'Cache-Control': 'private, no-store' } });
  }
  const checked = await checkEndpoint(await readBody(request), hook, id, context());
  const now = Date.now();
  const enabling = checked.enabled && hook.disabledMs !== null;
  const changed: TokenWebhook = {
    ...hook,
    url: checked.url,
    kinds: checked.kinds,
    secret: checked.secret,
    disabledMs: checked.enabled ? null : (hook.disabledMs ?? now),
    disabledReason: checked.enabled ? null : (hook.disabledReason ?? `disabled by ${user.email}`),
    // Enabled again (or moved): tried at once, its failures forgotten; it resumes after the last event it took.
    ...(enabling || checked.url !== hook.url ? { attempts: 0, headFailedMs: null, failingSinceMs: null, nextMs: now } : {}),
    // A new address is a new decision of where the token's events go: whoever gave it answers for it now.
    ...(checked.url !== hook.url ? { confirmedBy: user.email, confirmedMs: now } : {}),
    updatedMs: Math.max(now, hook.updatedMs + 1),
  };
  await fromStore((db) => saveTokenWebhook(db, changed));
  await audit(user, 'change', token, changed, { state: changed.disabledMs === null ? 'enabled' : 'disabled' });
  const saved: EndpointSaved = {
    ...(await fromStore(async (db) => endpointView(changed, [], await lastEventSeq(db), null))),
    secret: checked.shownSecret,
  };
  return json(saved);
}

/**
 * Sends one message now, outside the endpoint's order, and logs it: a test, or one event sent again. An event pays
 * one record of the token's quota, given back unless the receiver accepted it, and counts in its use.
 */
async function sendNow(token: ApiToken, hook: TokenWebhook, message: Message, trigger: 'test' | 'resend') {
  const { secretKey, allowPrivate } = context();
  if (!secretKey) throw invalidEndpoint({}, [SECRET_KEY_UNSET]);
  const secret = openEndpointSecret(hook, secretKey);
  const settle = message.seq === null ? null : await chargeRecord(token);
  const sent = await sendMessage(hook.url, secret, message, { allowPrivate });
  const now = Date.now();
  await settle?.(sent.outcome === 'delivered');
  if (settle && sent.outcome === 'delivered') tokenQuota.count(token, Buffer.byteLength(message.body), new URL(hook.url).origin, now);
  const attempt = await fromStore((db) => logAttempt(db, attemptOf(hook.id, message, trigger, sent, now)));
  return attemptView(attempt);
}

export async function testResponse(user: User, tokenId: string, id: string): Promise<Response> {
  const { token, hook } = await endpointOf(user, tokenId, id);
  await mustAct(token, hook);
  await takeAction('webhook.test', user.email, hook.id);
  await chargeRequest(token);
  const attempt = await sendNow(token, hook, testMessage(hook.id, user.email, Date.now()), 'test');
  await audit(user, 'test', token, hook, { outcome: attempt.outcome });
  return json({ attempt });
}

const wholeNumber = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** `{"event": N}`: event N sent again now; `{"after": N}`: every event after N sent again, in order, by the job. */
export async function resendResponse(request: Request, user: User, tokenId: string, id: string): Promise<Response> {
  const { token, hook } = await endpointOf(user, tokenId, id);
  const body = await readBody(request);
  const problems: Record<string, string> = {};
  for (const key of Object.keys(body))
    if (key !== 'event' && key !== 'after') problems[key] = 'is not a field of a resend (give "event" or "after")';
  if (body.event !== undefined && body.after !== undefined)
    problems.body = 'give "event" (one event) or "after" (every event after it), not both';
  else if (body.event === undefined && body.after === undefined)
    problems.body = 'give "event" (one event) or "after" (every event after it)';
  for (const key of ['event', 'after'] as const)
    if (body[key] !== undefined && !wholeNumber(body[key])) problems[key] = 'must be an event id (a whole number)';
  const last = await fromStore(lastEventSeq);
  if (wholeNumber(body.after) && (body.after as number) > hook.cursor)
    problems.after = `is after the last event this webhook was given (${hook.cursor}): the events after that are still to come`;
  if (wholeNumber(body.event) && (body.event as number) > last) problems.event = `is after the last event of this portal (${last})`;
  if (Object.keys(problems).length > 0) throw invalidEndpoint(problems);
  await mustAct(token, hook);
  await takeAction('webhook.resend', user.email, hook.id);
  await chargeRequest(token);
  if (body.after !== undefined) {
    await mustHaveRecords(token);
    const after = body.after as number;
    const now = Date.now();
    const moved: TokenWebhook = {
      ...hook,
      cursor: after,
      attempts: 0,
      headFailedMs: null,
      nextMs: now,
      updatedMs: Math.max(now, hook.updatedMs + 1),
    };
    await fromStore((db) => saveTokenWebhook(db, moved, true));
    await audit(user, 'resend', token, hook, { after: String(after) });
    return json({ resending: { after, upTo: hook.cursor }, webhook: endpointView(moved, [], last, null) }, 202);
  }
  const seq = body.event as number;
  const read = await fromStore(async (db) => readEventsAfter(db, token.scope, seq - 1, 1, await hashAtOrBefore(db, token.scope, seq - 1)));
  const event = read.events[0];
  if (!event || event.seq !== seq)
    throw new AppError({
      code: 'NOT_FOUND',
      message: `Event ${seq} is not in this token's stream: outside its scope, or no longer kept (events are kept ${getConfig().EVENTS_RETENTION_DAYS} days).`,
    });
  const attempt = await sendNow(token, hook, eventMessage(event, read.json[0]!), 'resend');
  await audit(user, 'resend', token, hook, { event: String(seq), outcome: attempt.outcome });
  return json({ attempt });
}

/**
 * The token's owner confirms a webhook someone else set up (its whole URL shown to them on the token's page): from
 * now it sends for them, from where it stood. Only the owner: where a token's events go is theirs to decide.
 */
export async function confirmResponse(user: User, tokenId: string, id: string): Promise<Response> {
  const { token, hook } = await endpointOf(user, tokenId, id);
  if (user.email !== token.owner)
    throw new AppError({ code: 'FORBIDDEN', message: `Only the token's owner (${token.owner}) may confirm where its events go.` });
  await mustAct(token);
  const now = Date.now();
  const confirmed: TokenWebhook = {
    ...hook,
    confirmedBy: user.email,
    confirmedMs: Math.max(now, token.ownerSinceMs),
    pausedReason: null,
    nextMs: now,
    updatedMs: Math.max(now, hook.updatedMs + 1),
  };
  await fromStore((db) => saveTokenWebhook(db, confirmed));
  await audit(user, 'confirm', token, confirmed, { was: hook.confirmedBy });
  const views = await fromStore((db) => endpointViews(db, token, user.email));
  return json(views.find((e) => e.id === id));
}

/** An endpoint's attempts, newest first, a page at a time (`?before=<ISO time>`). */
export async function attemptsResponse(request: Request, user: User, tokenId: string, id: string): Promise<Response> {
  const { hook } = await endpointOf(user, tokenId, id);
  const before = new URL(request.url).searchParams.get('before');
  const beforeMs = before === null ? undefined : Date.parse(before);
  if (beforeMs !== undefined && Number.isNaN(beforeMs)) throw invalidEndpoint({ before: 'must be a time (ISO 8601)' });
  const attempts = await fromStore((db) => webhookAttempts(db, hook.id, ATTEMPTS_SHOWN * 5, beforeMs));
  return json({ data: attempts.map(attemptView) });
}
