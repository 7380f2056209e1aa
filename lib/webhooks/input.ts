import 'server-only';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { fieldsThatPass } from '../net/json-body';
import { invalidFields, type SettingProblem } from '../errors';
import { openSecret, SECRET_KEY_UNSET, sealSecret } from '../deliveries/secrets';
import { targetProblem, webhookUrlProblem, type Resolver } from '../deliveries/targets';
import { EVENT_TYPES } from '../events/shape';
import type { TokenWebhook } from '../store/token-webhooks';
import type { PrivateTargets } from '../deliveries/targets';

/**
 * A consumer webhook as its token's owner (or an admin) enters it (docs/api-v1.md, "Consumer webhooks"): an
 * https URL that resolves to the public internet (the deliveries' address policy), the event types it wants, and
 * a Standard Webhooks secret (`whsec_` and 24–64 bytes in base64), made by the portal when none is given and shown
 * once. The secret is sealed and bound to this endpoint and its URL: a changed URL needs the secret again (or a
 * new one), so nobody can send a secret someone else entered to a server of their own.
 */

const SECRET_PREFIX = 'whsec_';

const secretField = z
  .string({ error: 'must be text' })
  .trim()
  .refine((value) => {
    if (!value.startsWith(SECRET_PREFIX)) return false;
    const body = value.slice(SECRET_PREFIX.length);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return false;
    const bytes = Buffer.from(body, 'base64').length;
    return bytes >= 24 && bytes <= 64;
  }, 'must be a Standard Webhooks secret: whsec_ followed by 24 to 64 random bytes in base64 (leave it out and the portal makes one)');

const fields = {
  url: z
    .string({ error: 'must be an https URL' })
    .trim()
    .max(2_000, 'must be at most 2000 characters')
    .refine((value) => /^https?:\/\/[^\s/]+/i.test(value) && URL.canParse(value), 'must be an http or https URL'),
  kinds: z
    .array(z.string({ error: 'must be a list of event types' }), { error: 'must be a list of event types' })
    .min(1, 'must name at least one event type')
    .superRefine((kinds, ctx) => {
      const unknown = kinds.filter((k) => !(EVENT_TYPES as readonly string[]).includes(k));
      if (unknown.length)
        ctx.addIssue({
          code: 'custom',
          message: `${unknown.map((k) => `"${k.slice(0, 40)}"`).join(', ')} is not an event type. Allowed: ${EVENT_TYPES.join(', ')}`,
        });
    }),
  secret: secretField,
  enabled: z.boolean({ error: 'must be true or false' }),
};
export const endpointCreateBody = z.strictObject({ url: fields.url, kinds: fields.kinds.optional(), secret: fields.secret.optional() });
export const endpointChangeBody = z.strictObject({
  url: fields.url.optional(),
  kinds: fields.kinds.optional(),
  secret: fields.secret.optional(),
  enabled: fields.enabled.optional(),
});

export const invalidEndpoint = (details: Record<string, string>, settings: SettingProblem[] = []) =>
  invalidFields('webhook', details, 'INVALID_FILTERS', settings);

/** What the secret is bound to: this endpoint at this URL. */
export function endpointBinding(id: string, url: string): string {
  const parsed = new URL(url);
  return `token-webhook\0${id}\0${parsed.origin}${parsed.pathname}${parsed.search}`;
}

export const newSecret = () => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** The endpoint's secret, opened for exactly its id and URL (throws SecretUnreadable otherwise). */
export const openEndpointSecret = (hook: Pick<TokenWebhook, 'id' | 'url' | 'secret'>, secretKey: string) =>
  openSecret(hook.secret, secretKey, endpointBinding(hook.id, hook.url));

export interface EndpointContext {
  secretKey: string | null;
  allowPrivate: PrivateTargets;
  resolver?: Resolver;
}

export interface CheckedEndpoint {
  url: string;
  kinds: string[];
  /** Sealed for the endpoint's id and URL. */
  secret: string;
  /** The secret in clear when the portal made it or it was given now: shown once, in the answer. */
  shownSecret: string | null;
  enabled: boolean;
}

/** A new endpoint (existing null) or a change to one, checked whole: every wrong field named at once. */
export async function checkEndpoint(
  input: unknown,
  existing: TokenWebhook | null,
  id: string,
  context: EndpointContext,
): Promise<CheckedEndpoint> {
  const parsed = (existing ? endpointChangeBody : endpointCreateBody).safeParse(input);
  const problems: Record<string, string> = {};
  if (!parsed.success) for (const issue of parsed.error.issues) problems[issue.path.join('.') || 'body'] ??= issue.message;
  const given = (parsed.success ? parsed.data : fieldsThatPass(endpointChangeBody.shape, input)) as Partial<
    z.infer<typeof endpointChangeBody>
  >;
  if (given.url && !problems.url) {
    const problem =
      webhookUrlProblem(given.url, context.allowPrivate) ??
      (await targetProblem(new URL(given.url).hostname, context.allowPrivate, context.resolver));
    if (problem) problems.url = problem;
  }
  const url = given.url ?? existing?.url;
  const moved = existing !== null && url !== existing.url;
  if (moved && given.secret === undefined && !problems.secret)
    problems.secret = 'is bound to the URL it was saved with: enter it again for the new URL, or give a new one';
  const settings = context.secretKey ? [] : [SECRET_KEY_UNSET];
  if (Object.keys(problems).length > 0 || settings.length > 0 || !parsed.success || !url) throw invalidEndpoint(problems, settings);
  const made = !existing && given.secret === undefined ? newSecret() : null;
  const plain = given.secret ?? made;
  return {
    url,
    kinds: given.kinds ? EVENT_TYPES.filter((k) => given.kinds!.includes(k)) : (existing?.kinds ?? [...EVENT_TYPES]),
    secret: plain ? sealSecret(plain, context.secretKey!, endpointBinding(id, url)) : existing!.secret,
    shownSecret: made,
    enabled: given.enabled ?? (existing ? existing.disabledMs === null : true),
  };
}

/** A new endpoint of a token, starting after `cursor` (the feed's newest event: it receives what comes next). */
export const newEndpoint = (
  id: string,
  tokenId: string,
  checked: CheckedEndpoint,
  by: string,
  cursor: number,
  now = Date.now(),
): TokenWebhook => ({
  id,
  tokenId,
  url: checked.url,
  kinds: checked.kinds,
  secret: checked.secret,
  cursor,
  attempts: 0,
  headFailedMs: null,
  failingSinceMs: null,
  nextMs: now,
  pausedReason: null,
  disabledMs: null,
  disabledReason: null,
  createdBy: by,
  createdMs: now,
  confirmedBy: by,
  confirmedMs: now,
  updatedMs: now,
});
