import 'server-only';
import { randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/record';
import { mayAct } from '../auth/principal';
import { normaliseEmail } from '../auth/users';
import type { PortalSession } from '../auth/principal';
import { AppError, invalidFields } from '../errors';
import { readJsonObject } from '../net/json-body';
import { licenceOrNull } from '../picks-api/portal';
import { fromStore } from '../store';
import { tokenWebhooks } from '../store/token-webhooks';
import { maskedWebhookUrl } from '../deliveries/targets';
import { insertToken, listTokens, reassignToken, revokeToken, updateToken, type ApiToken } from '../store/tokens';
import { forgetTokens, newToken, tokenPrincipal } from '../tokens/access';
import { recentUsage, suspendedBecause, tokenViews, viewOf, visibleToken } from '../tokens/read';
import { ceilingsFor } from '../tokens/ceilings';
import { checkTokenSettings, describeScope } from '../tokens/scope';
import { tokenView } from '../tokens/view';

/**
 * The tokens API (POST/GET /api/tokens, GET/PATCH/DELETE /api/tokens/<id>, GET /api/tokens/<id>/usage), the one
 * the /tokens page uses too. Admins see and manage every token; editors create and manage their own. A token
 * is shown once, in the answer that creates it; every creation, change and revocation is audited.
 */

type User = PortalSession['user'];
const MAX_BODY = 8_192;
const MAX_LIVE_PER_OWNER = 25;

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'Cache-Control': 'private, no-store' } });
const refuse = (details: Record<string, string>) => invalidFields('token', details, 'INVALID_TOKEN');
const notFound = () => new AppError({ code: 'NOT_FOUND', message: 'There is no such token.' });

async function visible(user: User, id: string): Promise<ApiToken> {
  const token = await visibleToken(user, id);
  if (!token) throw notFound();
  return token;
}

const audit = (user: User, action: 'create' | 'change' | 'revoke' | 'reassign', token: ApiToken, previousOwner?: string) =>
  recordAudit({
    actor: user.email,
    role: user.role,
    action: `token.${action}`,
    target: `${token.name} (${token.id})`,
    filters:
      action === 'revoke'
        ? null
        : action === 'reassign'
          ? { from: previousOwner ?? '', to: token.owner }
          : {
              scope: describeScope(token.scope),
              expiresAt: new Date(token.expiresMs).toISOString(),
              ratePerMinute: String(token.ratePerMinute),
              dailyRecords: String(token.dailyRecords),
            },
    outcome: 'complete',
  });

export async function tokensResponse(request: Request, user: User): Promise<Response> {
  if (request.method === 'GET') return json({ data: await tokenViews(user) });
  const body = await readJsonObject(request, MAX_BODY, refuse);
  const settings = checkTokenSettings(body, null, await licenceOrNull(), Date.now(), await ceilingsFor(user));
  const live = (await fromStore((db) => listTokens(db, user.email))).filter((t) => t.revokedMs === null && t.expiresMs > Date.now());
  if (live.length >= MAX_LIVE_PER_OWNER)
    throw refuse({ token: `you have ${MAX_LIVE_PER_OWNER} live tokens, the most allowed; revoke one first` });
  const { token: secret, hash, prefix } = newToken();
  const now = Date.now();
  const token: ApiToken = {
    id: `tok_${randomBytes(6).toString('hex')}`,
    ...settings,
    owner: user.email,
    ownerSinceMs: now,
    prefix,
    createdMs: now,
    createdBy: user.email,
    updatedMs: now,
    revokedMs: null,
    revokedBy: null,
  };
  await fromStore((db) => insertToken(db, token, hash));
  await audit(user, 'create', token);
  return json({ ...tokenView(token, undefined, null), token: secret }, 201);
}

export async function tokenResponse(request: Request, user: User, id: string): Promise<Response> {
  const current = await visible(user, id);
  if (request.method === 'GET') return json(await viewOf(current));
  if (current.revokedMs !== null) throw new AppError({ code: 'NOT_FOUND', message: 'This token was revoked; it cannot be changed.' });
  if (request.method === 'DELETE') {
    await fromStore((db) => revokeToken(db, id, user.email, Date.now()));
    forgetTokens();
    await audit(user, 'revoke', current);
    return new Response(null, { status: 204, headers: { 'Cache-Control': 'private, no-store' } });
  }
  const { owner, ...body } = await readJsonObject(request, MAX_BODY, refuse);
  if (owner !== undefined) return reassign(user, current, owner, Object.keys(body));
  const settings = checkTokenSettings(body, current, await licenceOrNull(), Date.now(), await ceilingsFor(user));
  const changed: ApiToken = { ...current, ...settings, updatedMs: Date.now() };
  await fromStore((db) => updateToken(db, id, changed));
  forgetTokens();
  await audit(user, 'change', changed);
  return json(tokenView(changed, undefined, await suspendedBecause(changed)));
}

/**
 * An admin gives a live token to another owner (when its owner leaves, the partner's system keeps running):
 * the new owner must be someone who may hold tokens now. Audited with both owners.
 */
async function reassign(user: User, current: ApiToken, owner: unknown, others: string[]): Promise<Response> {
  if (user.role !== 'admin') throw new AppError({ code: 'FORBIDDEN', message: 'Only an admin may give a token to another owner.' });
  const problems: Record<string, string> = {};
  for (const key of others) problems[key] = 'cannot be changed together with the owner; change the owner on its own';
  const email = typeof owner === 'string' ? normaliseEmail(owner) : '';
  const now = Date.now();
  const changed: ApiToken = { ...current, owner: email, ownerSinceMs: now, updatedMs: now };
  if (!email) problems.owner = 'must be the email address of a person who may hold tokens';
  else {
    const standing = await mayAct({ ...tokenPrincipal(changed), ownerSinceMs: Number.POSITIVE_INFINITY }, 'tokens', now);
    if (!standing.ok) problems.owner = `${email} cannot hold tokens (${standing.reason.replace(/^owner (is )?/, '')})`;
  }
  if (Object.keys(problems).length > 0) throw refuse(problems);
  await fromStore((db) => reassignToken(db, current.id, email, now));
  forgetTokens();
  await audit(user, 'reassign', changed, current.owner);
  // Where its events go was the old owner's decision: each webhook someone else set up waits for the new owner
  // (lib/webhooks/confirm.ts), and the trail says which.
  for (const hook of await fromStore((db) => tokenWebhooks(db, current.id)))
    if (hook.confirmedBy !== email)
      await recordAudit({
        actor: user.email,
        role: user.role,
        action: 'token.webhook.await',
        target: `${changed.name} (${changed.id}) webhook ${hook.id}`,
        filters: { url: maskedWebhookUrl(hook.url), setUpBy: hook.confirmedBy, awaits: email },
        outcome: 'complete',
      });
  return json(tokenView(changed, undefined, null));
}

/** A token's use per day over the last 30 days (days without use are left out). */
export async function usageResponse(user: User, id: string): Promise<Response> {
  const token = await visible(user, id);
  const { since, days } = await recentUsage(token.id);
  return json({ token: { id: token.id, name: token.name, dailyRecords: token.dailyRecords }, since, days });
}
