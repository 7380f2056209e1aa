import { z } from 'zod';
import { createDocument, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { portalErrorSchema } from '../vocabulary/error-schema';
import { rolesWith } from '../vocabulary/roles';
import { MEDIA_TYPES } from '../export/file-headers';
import { PORTAL_OPERATIONS, type FileAnswer, type PortalOperation } from './portal-operations';
import { LICENSE, serversAt } from '../api-v1/openapi';

/**
 * The OpenAPI 3.1 document of the portal's own HTTP API (GET /api/openapi.json, signed in), made by zod-openapi
 * from ./portal-operations.ts: each operation's roles (from the capability its route asks for), its request body
 * (the schema the handler checks with) and its answers, every refusal the one error body, a 400 naming each wrong
 * field in `error.details`.
 */

const SESSION =
  'A signed-in session: the cookie `__Host-portal.session` (over https; `portal.session` over http), set by signing in on /login. State-changing requests must come from the portal’s own origin (`Origin` or `Sec-Fetch-Site: same-origin`); others are 403.';

const refusal = (description: string) => ({ description, content: { 'application/json': { schema: portalErrorSchema } } });
const FILES: Record<FileAnswer, readonly string[]> = {
  export: Object.values(MEDIA_TYPES),
  jws: ['application/jose'],
  json: ['application/json'],
  jsonl: ['application/x-ndjson'],
  coverage: ['application/x-ndjson', 'text/csv'],
  jwks: ['application/jwk-set+json'],
};
/** The media types whose body is JSON the answer's schema describes (others are files, or lines of JSON). */
const JSON_TYPES = new Set(['application/json', 'application/jwk-set+json']);
const anyJson = z.looseObject({}).meta({ description: 'As docs/api.md describes for this call.' });

/** A relay of API v1 answers whatever status API v1 gives, in API v1's body (its own document describes them). */
const relayed = z
  .looseObject({})
  .meta({ description: 'API v1’s answer, as /api/v1 gives it to the token (GET /api/v1/openapi.json), or a PortalError.' });

function responses(o: PortalOperation): ZodOpenApiResponsesObject {
  if (o.relaysV1) {
    const content = { 'application/json': { schema: relayed } };
    return {
      '4XX': {
        description:
          'API v1’s refusal (its error body), or the portal’s (PortalError): no session, not the person’s token, not from the page.',
        content,
      },
      default: { description: 'API v1’s answer for the token.', content },
    };
  }
  const out: ZodOpenApiResponsesObject = {};
  for (const status of o.ok ?? [200])
    out[String(status) as '200'] =
      status === 204
        ? { description: 'Done; no body.' }
        : {
            description: o.file ? 'The file, complete, or a failure said in its last bytes (docs/api.md, “Exports”).' : 'Done.',
            content: Object.fromEntries(
              (o.file ? FILES[o.file] : ['application/json']).map((type) => [
                type,
                { schema: JSON_TYPES.has(type) ? (o.answer ?? anyJson) : z.string().meta({ format: 'binary' }) },
              ]),
            ),
          };
  out['400'] = refusal('A wrong body or query: `error.details` names each wrong field with its problem.');
  if (o.capability) {
    out['401'] = refusal('No session, or one that ended: sign in again.');
    out['403'] = refusal(`The role may not (${rolesWith(o.capability).join(', ')} may), or the request came from another site.`);
  }
  if (o.path.includes('{')) out['404'] = refusal('No such item (or one the signed-in person may not see).');
  if (o.method !== 'get') out['409'] = refusal('A conflict: a name already taken, or the item busy (a run already in flight).');
  if (o.method !== 'get') out['413'] = refusal('The body is larger than the portal takes.');
  out['429'] = refusal('Too many at once (exports and walks have their slots): `Retry-After` says when.');
  out['502'] = refusal('The upstream failed.');
  out['503'] = refusal('The store or the upstream is unavailable: try again shortly.');
  out['504'] = refusal('The upstream did not answer in time.');
  if (o.unavailable)
    out['503'] = {
      description: 'Not ready: the body says which part does not answer.',
      content: { 'application/json': { schema: o.unavailable } },
    };
  for (const [status, description] of Object.entries(o.also ?? {})) out[status as '400'] = refusal(description);
  return out;
}

const pathParams = (path: string) => {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  return names.length ? { path: z.object(Object.fromEntries(names.map((n) => [n, z.string().min(1)]))) } : undefined;
};

/** `origin`: the serving portal's public origin (absent: a host variable). */
export function portalDocument(origin?: string) {
  const paths: ZodOpenApiPathsObject = {};
  for (const o of PORTAL_OPERATIONS) {
    const roles = o.capability ? rolesWith(o.capability) : [];
    const params = pathParams(o.path);
    (paths[o.path] ??= {})[o.method] = {
      operationId: `${o.method}${o.path.replace(/\{([^}]+)\}/g, 'By-$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: o.summary,
      tags: [o.path.split('/')[2]!],
      description: [
        o.capability ? `Roles: ${roles.join(', ')}.` : 'No session needed.',
        o.query ? `Query: ${o.query}. Unknown, repeated or malformed parameters are 400, every one named.` : '',
      ]
        .filter(Boolean)
        .join(' '),
      'x-roles': roles,
      security: o.capability ? [{ session: [] }] : [],
      ...(params ? { requestParams: params } : {}),
      ...(o.body ? { requestBody: { required: true, content: { 'application/json': { schema: o.body } } } } : {}),
      ...(o.form ? { requestBody: { required: true, content: { 'multipart/form-data': { schema: o.form } } } } : {}),
      responses: responses(o),
    };
  }
  const tags = [...new Set(PORTAL_OPERATIONS.map((o) => o.path.split('/')[2]!))].map((name) => ({ name, description: `/api/${name}` }));
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Picks partner portal — the portal’s own API',
      version: '1',
      license: LICENSE,
      description:
        'What the portal’s pages use, open to scripts with a signed-in session (docs/api.md). Each operation names the roles that may call it (`x-roles`).',
    },
    servers: serversAt(origin),
    tags,
    components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: '__Host-portal.session', description: SESSION } } },
    paths,
  });
}
