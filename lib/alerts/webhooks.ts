import 'server-only';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Agent, fetch as undiciFetch } from 'undici';
import { z } from 'zod';
import { fieldsThatPass } from '../net/json-body';
import { invalidFields, type SettingProblem } from '../errors';
import { signedPrefix } from '../deliveries/webhook';
import { openSecret, SECRET_KEY_UNSET, sealSecret, secretBinding } from '../deliveries/secrets';
import { maskedWebhookUrl, pinnedLookup, pinTarget, targetProblem, webhookUrlProblem, type Resolver } from '../deliveries/targets';
import type { Alert } from '../store/alerts';
import type { AlertWebhook } from '../store/alert-channels';
import { isSealed } from '../store/at-rest';
import { ALERT_KINDS } from './subscriptions';
import { messageFor, type Message } from '.';
import type { alertWebhookViewSchema } from './answers';
import type { PrivateTargets } from '../deliveries/targets';

/**
 * Shared webhooks for alerts, set by admins: each receives the kinds it names, as the portal's signed JSON
 * or as a chat tool's incoming-webhook payload ({"text"}). Signed exactly as deliveries' webhooks are
 * (X-Picks-Signature: HMAC-SHA256 over `v2\n<timestamp>\n<X-Picks-Delivery>\n<X-Picks-File>\n<X-Picks-Manifest>\n`
 * and the body; docs/security.md), so one receiver checks both. The secret is sealed and bound to the URL
 * (lib/deliveries/secrets.ts); the URL is a secret too (a chat hook's is its credential) and is shown masked.
 * Each send connects to the address checked for it, in one attempt of at most 10 s; lib/alerts/dispatch.ts retries.
 */

export const WEBHOOK_FORMATS = ['signed', 'chat', 'email'] as const;
const MAILTO = 'mailto:';

const kindsField = z
  .array(z.string({ error: 'must be a list of alert kinds' }), { error: 'must be a list of alert kinds' })
  .min(1, 'must name at least one alert kind')
  .superRefine((kinds, ctx) => {
    const unknown = kinds.filter((k) => !(ALERT_KINDS as readonly string[]).includes(k));
    if (unknown.length)
      ctx.addIssue({
        code: 'custom',
        message: `${unknown.map((k) => `"${k.slice(0, 40)}"`).join(', ')} is not an alert kind. Allowed: ${ALERT_KINDS.join(', ')}`,
      });
  });

const fields = {
  name: z.string({ error: 'must be a name' }).trim().min(1, 'is required').max(80, 'must be at most 80 characters'),
  url: z
    .string({ error: 'must be an http or https URL' })
    .trim()
    .max(2_000, 'must be at most 2000 characters')
    .refine((value) => /^https?:\/\/[^\s/]+/i.test(value) && URL.canParse(value), 'must be an http or https URL'),
  address: z
    .string({ error: 'must be an email address' })
    .trim()
    .max(320, 'must be at most 320 characters')
    .email('must be an email address'),
  format: z.enum(WEBHOOK_FORMATS, {
    error: 'must be "signed" (the portal’s JSON), "chat" (a chat tool’s incoming webhook) or "email" (a shared address)',
  }),
  kinds: kindsField,
  secret: z
    .string({ error: 'must be text, or null to remove it' })
    .min(16, 'must be at least 16 characters')
    .max(256, 'must be at most 256 characters')
    .nullable(),
};
export const alertWebhookCreateBody = z.strictObject({
  ...fields,
  url: fields.url.optional(),
  address: fields.address.optional(),
  secret: fields.secret.optional(),
});
export const alertWebhookChangeBody = z.strictObject({
  name: fields.name.optional(),
  url: fields.url.optional(),
  address: fields.address.optional(),
  format: fields.format.optional(),
  kinds: fields.kinds.optional(),
  secret: fields.secret.optional(),
});

export const invalidWebhook = (details: Record<string, string>, settings: SettingProblem[] = []) =>
  invalidFields('webhook', details, 'INVALID_FILTERS', settings);

export interface WebhookContext {
  secretKey: string | null;
  allowPrivate: PrivateTargets;
  resolver?: Resolver;
}

/** A webhook to create (existing null) or a change to one, checked whole: every wrong field named at once. */
export async function checkWebhook(
  input: unknown,
  existing: AlertWebhook | null,
  by: string,
  context: WebhookContext,
  now = new Date(),
): Promise<AlertWebhook> {
  const parsed = (existing ? alertWebhookChangeBody : alertWebhookCreateBody).safeParse(input);
  const problems: Record<string, string> = {};
  if (!parsed.success) for (const issue of parsed.error.issues) problems[issue.path.join('.') || 'body'] ??= issue.message;
  // The fields that are right, even when others are not: every problem is then named in one answer.
  const given = (parsed.success ? parsed.data : fieldsThatPass(alertWebhookChangeBody.shape, input)) as Partial<
    z.infer<typeof alertWebhookChangeBody>
  >;
  const format = given.format ?? existing?.format;
  let url: string | undefined;
  if (format === 'email') {
    // A shared address (a team's list): mailed like a person's alerts; no URL, no secret.
    if (given.url) problems.url = 'is not used by the "email" format: give the address';
    if (given.secret) problems.secret = 'is not used by the "email" format';
    const address = given.address ?? (existing?.url.startsWith(MAILTO) ? existing.url.slice(MAILTO.length) : undefined);
    if (!address && !problems.address) problems.address = 'is needed for the "email" format';
    url = address && `${MAILTO}${address}`;
  } else {
    if (given.address) problems.address = 'is only for the "email" format';
    url = given.url ?? (existing?.url.startsWith(MAILTO) ? undefined : existing?.url);
    if (!url && !problems.url) problems.url = 'is needed: an http or https URL';
  }
  if (given.url && !problems.url && format !== 'email') {
    const host = new URL(given.url).hostname;
    problems.url =
      webhookUrlProblem(given.url, context.allowPrivate) ?? (await targetProblem(host, context.allowPrivate, context.resolver)) ?? '';
    if (!problems.url) delete problems.url;
  }
  const moved = existing !== null && url !== existing.url;
  let secret = existing?.secret ?? null;
  if (given.secret !== undefined) secret = null;
  const settings = given.secret && !context.secretKey ? [SECRET_KEY_UNSET] : [];
  if (moved && existing?.secret && given.secret === undefined)
    problems.secret = 'is bound to the URL it was saved with: enter it again for the new URL (or null for none)';
  const willHaveSecret = given.secret ? true : given.secret === undefined && !!secret && !moved;
  if (format === 'signed' && !willHaveSecret && !problems.secret)
    problems.secret = 'is needed for the "signed" format (at least 16 characters): receivers check the signature with it';
  if (Object.keys(problems).length || settings.length || !parsed.success || !url || !format) throw invalidWebhook(problems, settings);
  if (given.secret) secret = sealSecret(given.secret, context.secretKey!, secretBinding({ type: 'webhook', url })!);
  return {
    id: existing?.id ?? `wh_${randomBytes(6).toString('hex')}`,
    name: given.name ?? existing!.name,
    url,
    format,
    kinds: given.kinds ?? existing!.kinds,
    secret,
    createdBy: existing?.createdBy ?? by,
    createdAt: existing?.createdAt ?? now.toISOString(),
    updatedAt: now.toISOString(),
  };
}

/** A webhook as anyone sees it: the URL masked, the secret only as whether there is one. */
export const webhookView = (hook: AlertWebhook): z.infer<typeof alertWebhookViewSchema> => ({
  id: hook.id,
  name: hook.name,
  url: hook.url.startsWith(MAILTO) ? hook.url.slice(MAILTO.length) : maskedWebhookUrl(hook.url),
  format: hook.format,
  kinds: hook.kinds,
  signed: hook.secret !== null,
  createdBy: hook.createdBy,
  createdAt: hook.createdAt,
  updatedAt: hook.updatedAt,
});

export interface PostContext {
  secretKey: string | null;
  allowPrivate: PrivateTargets;
  portalUrl: string;
  now: number;
  timeoutMs?: number;
  resolver?: Resolver;
}

/** The body a webhook receives for the alerts of one kind. */
export function webhookBody(hook: AlertWebhook, alerts: Alert[], portalUrl: string, now: number): string {
  if (hook.format === 'chat') {
    const message = messageFor(alerts, [], portalUrl);
    // Chat tools read &, < and > as markup (<!channel>, <url|label>): escaped, a name is shown as written, never acted on.
    return JSON.stringify({ text: chatEscape(`${message.subject}\n${message.text}`) });
  }
  return JSON.stringify({
    event: alerts[0]!.kind,
    sentAt: new Date(now).toISOString(),
    portal: portalUrl,
    alerts: alerts.map((a) => ({
      id: a.id,
      kind: a.kind,
      subject: a.sport,
      state: a.state,
      side: a.side,
      reason: a.reason,
      detail: a.detail,
      raisedAt: new Date(a.createdMs).toISOString(),
    })),
  });
}

/** How a shared channel is sent to: a webhook's POST, or for a shared address an email through the alerts' mailer. */
export function channelSender(context: Omit<PostContext, 'now'> & { send: ((message: Message) => Promise<void>) | null }) {
  return async (hook: AlertWebhook, alerts: Alert[]): Promise<void> => {
    if (hook.format !== 'email') return postAlerts(hook, alerts, { ...context, now: Date.now() });
    if (!context.send) throw new Error('no SMTP_URL is set: the address cannot be mailed');
    await context.send(messageFor(alerts, [hook.url.slice(MAILTO.length)], context.portalUrl));
  };
}

/** One signed POST of the alerts of one kind; throws, in plain words and without the URL, when it was not accepted. */
export async function postAlerts(hook: AlertWebhook, alerts: Alert[], context: PostContext): Promise<void> {
  if (isSealed(hook.url)) throw new Error('its URL is sealed under another key than this instance’s DELIVERY_SECRET_KEY');
  if (hook.secret && !context.secretKey) throw new Error('DELIVERY_SECRET_KEY is not set: the webhook’s secret cannot be opened');
  // Opened for exactly this URL: a secret carried to another one fails here (lib/deliveries/secrets.ts).
  const secret = hook.secret ? openSecret(hook.secret, context.secretKey!, secretBinding({ type: 'webhook', url: hook.url })) : null;
  if (alerts.length === 0) return;
  const target = new URL(hook.url);
  const pinned = await pinTarget(target.hostname, context.allowPrivate, context.resolver);
  if (!pinned.ok) throw new Error(pinned.problem);
  const body = Buffer.from(webhookBody(hook, alerts, context.portalUrl, context.now));
  const timestamp = String(Math.floor(context.now / 1000));
  const file = `alerts-${alerts[0]!.kind}-${timestamp}.json`;
  const manifest = Buffer.from(
    JSON.stringify({ event: alerts[0]!.kind, alerts: alerts.length, sha256: createHash('sha256').update(body).digest('hex') }),
  ).toString('base64url');
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': 'picks-partner-portal',
    'X-Picks-Event': alerts[0]!.kind,
    'X-Picks-Delivery': hook.id,
    'X-Picks-File': file,
    'X-Picks-Timestamp': timestamp,
    'X-Picks-Manifest': manifest,
  };
  if (secret !== null) {
    const signature = createHmac('sha256', secret)
      .update(signedPrefix({ timestamp, deliveryId: hook.id, file, manifest }))
      .update(body);
    headers['X-Picks-Signature'] = `v2=${signature.digest('hex')}`;
  }
  const dispatcher = new Agent({ connect: { lookup: pinnedLookup(pinned) } });
  try {
    const res = await undiciFetch(hook.url, {
      method: 'POST',
      redirect: 'error',
      dispatcher,
      signal: AbortSignal.timeout(context.timeoutMs ?? 10_000),
      body,
      headers,
    });
    await res.body?.cancel().catch(() => undefined);
    if (!res.ok) throw new Error(`the webhook answered HTTP ${res.status}`);
  } catch (error) {
    const cause = (error as Error).cause as Error | undefined;
    if ((error as Error).message.startsWith('the webhook answered')) throw error;
    const why = (error as Error).name === 'TimeoutError' ? 'it did not answer in time' : (cause?.message ?? (error as Error).message);
    throw new Error(`the webhook could not be reached (${why.replaceAll(hook.url, maskedWebhookUrl(hook.url))})`);
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

/** Text as a chat tool's incoming webhook shows it literally (Slack's and Mattermost's escaping). */
export const chatEscape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
