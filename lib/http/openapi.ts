import 'server-only';
import { getConfig, portalOrigin } from '../config';
import { portalDocument } from '../openapi/portal';

let text: string | undefined;

/** GET /api/openapi.json: the portal API's OpenAPI document (./portal.ts), made once a process. */
export async function portalDocumentResponse(): Promise<Response> {
  text ??= JSON.stringify(portalDocument(portalOrigin(getConfig())));
  return new Response(text, { headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'private, max-age=300' } });
}
