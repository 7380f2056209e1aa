import 'server-only';
import { readJsonObject } from '../net/json-body';
import { recordAudit } from '../audit/record';
import type { PortalSession } from '../auth/principal';
import { getConfig } from '../config';
import { AppError } from '../errors';
import { fromStore } from '../store';
import { deleteWebhook, getWebhook, listWebhooks, saveWebhook, type AlertWebhook } from '../store/alert-channels';
import { checkWebhook, invalidWebhook, webhookView } from '../alerts/webhooks';

/**
 * GET/POST /api/alerts/webhooks and PATCH/DELETE /api/alerts/webhooks/<id>: the shared webhooks alerts go
 * to (admins). Every change is audited; answers never carry the secret or the whole URL.
 */

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'Cache-Control': 'private, no-store' } });
const MAX_BODY = 8_192;
const MAX_WEBHOOKS = 20;

const readBody = (request: Request) =>
  readJsonObject(
    request,
    MAX_BODY,
    invalidWebhook,
    () => new AppError({ code: 'PAYLOAD_TOO_LARGE', message: `A webhook is at most ${MAX_BODY} bytes.` }),
  );

const context = () => {
  const config = getConfig();
  return { secretKey: config.DELIVERY_SECRET_KEY ?? null, allowPrivate: config.DELIVERY_ALLOW_PRIVATE_TARGETS };
};

async function existing(id: string): Promise<AlertWebhook> {
  const found = /^wh_[0-9a-f]{12}$/.test(id) ? await fromStore((db) => getWebhook(db, id)) : null;
  if (!found) throw new AppError({ code: 'NOT_FOUND', message: 'There is no such webhook.' });
  return found;
}

const audit = (session: PortalSession, action: 'add' | 'change' | 'remove', hook: AlertWebhook) =>
  recordAudit({
    actor: session.user.email,
    role: session.user.role,
    action: `alerts.webhook.${action}`,
    target: hook.name,
    filters: action === 'remove' ? null : { format: hook.format, kinds: hook.kinds.join(' '), url: webhookView(hook).url },
    outcome: 'complete',
  });

export async function webhooksResponse(request: Request, session: PortalSession): Promise<Response> {
  if (request.method === 'GET') return json({ data: (await fromStore(listWebhooks)).map(webhookView) });
  const body = await readBody(request);
  const all = await fromStore(listWebhooks);
  if (all.length >= MAX_WEBHOOKS) throw invalidWebhook({ webhook: `there are ${MAX_WEBHOOKS} already, the most allowed` });
  const hook = await checkWebhook(body, null, session.user.email, context());
  if (all.some((h) => h.name.toLowerCase() === hook.name.toLowerCase())) throw invalidWebhook({ name: 'is taken by another webhook' });
  await fromStore((db) => saveWebhook(db, hook));
  await audit(session, 'add', hook);
  return json(webhookView(hook), 201);
}

export async function webhookResponse(request: Request, session: PortalSession, id: string): Promise<Response> {
  const current = await existing(id);
  if (request.method === 'GET') return json(webhookView(current));
  if (request.method === 'DELETE') {
    await fromStore((db) => deleteWebhook(db, id));
    await audit(session, 'remove', current);
    return new Response(null, { status: 204, headers: { 'Cache-Control': 'private, no-store' } });
  }
  const hook = await checkWebhook(await readBody(request), current, session.user.email, context());
  const all = await fromStore(listWebhooks);
  if (all.some((h) => h.id !== id && h.name.toLowerCase() === hook.name.toLowerCase()))
    throw invalidWebhook({ name: 'is taken by another webhook' });
  await fromStore((db) => saveWebhook(db, hook));
  await audit(session, 'change', hook);
  return json(webhookView(hook));
}
