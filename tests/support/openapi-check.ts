import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Every answer checked against an OpenAPI 3.1 document by Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1):
 * the operation is found by method and path (templated paths matched), the answer's status picked (or `default`),
 * and its JSON body validated with the document's components (none given: the status alone). A status the document
 * does not list, or a body it does not describe (a field it does not name in a closed object), is the problem returned.
 */

type Document = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>> };

export function answerChecker(
  document: object,
): (method: string, url: string, status: number, body: unknown, contentType?: string | null) => string | null {
  const doc = document as Document & { components?: object };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', ...doc } as object);
  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{[^}]+\\\}|\{[^}]+\}/g, '[^/]+')}$`),
  }));
  return (method, url, status, body, contentType) => {
    const pathname = new URL(url, 'http://x').pathname;
    const found = templates.find((t) => t.template === pathname) ?? templates.find((t) => t.pattern.test(pathname));
    if (!found) return `${method} ${pathname} is not in the document`;
    const operation = doc.paths[found.template]![method.toLowerCase()];
    // A method the path does not have is refused 405 with the error body, as every operation's 405 says.
    if (!operation && status === 405) return validateWith('doc#/components/schemas/Error', method, pathname, status, body);
    if (!operation) return `${method} ${found.template} is not in the document`;
    const key = String(status) in operation.responses ? String(status) : 'default' in operation.responses ? 'default' : null;
    if (key === null) return `${method} ${found.template} does not list the status ${status}`;
    const listed = operation.responses[key]!.content;
    // The answer's media type is one the document lists for that status (a JSON Lines file is not "application/json").
    const media = contentType?.split(';')[0]!.trim().toLowerCase();
    if (media && listed && !(media in listed))
      return `${method} ${found.template} ${status} answers ${media}; the document lists ${Object.keys(listed).join(', ')}`;
    const content = listed?.['application/json'];
    if (!content) return null;
    return validateWith(
      `doc#/paths/${found.template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${key}/content/application~1json/schema`,
      method,
      pathname,
      status,
      body,
    );
  };
  function validateWith(ref: string, method: string, pathname: string, status: number, body: unknown): string | null {
    // No JSON body to judge (a file, an empty answer): the status alone was checked.
    if (body === undefined) return null;
    // Ajv compiles a reference once and keeps it.
    const validate = ajv.getSchema(ref)!;
    if (validate(body)) return null;
    // Each problem where it is, naming a field the document does not (Ajv's own text leaves its name out).
    const problems = (validate.errors ?? []).map(
      (e) =>
        `${e.instancePath || '(the body)'} ${e.message}${e.keyword === 'additionalProperties' ? `: ${String(e.params.additionalProperty)}` : ''}`,
    );
    return `${method} ${pathname} ${status}: ${problems.join('; ')}`;
  }
}

/**
 * A webhook's body checked against the document's `webhooks` entry for its type (OpenAPI 3.1): null when it is
 * what the document says that type's message is, otherwise where it is not.
 */
export function webhookChecker(document: object): (body: { type: string; [field: string]: unknown }) => string | null {
  const doc = document as { webhooks: Record<string, unknown> };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', ...doc } as object);
  return (body) => {
    if (!(body.type in doc.webhooks)) return `the document has no webhook "${body.type}"`;
    const validate = ajv.getSchema(
      `doc#/webhooks/${body.type.replace(/~/g, '~0').replace(/\//g, '~1')}/post/requestBody/content/application~1json/schema`,
    )!;
    if (validate(body)) return null;
    return `${body.type}: ${(validate.errors ?? []).map((e) => `${e.instancePath || '(the body)'} ${e.message}`).join('; ')}`;
  };
}
