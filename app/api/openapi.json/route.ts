import { withRole } from '@/lib/http';
import { portalDocumentResponse } from '@/lib/openapi/responses';

// The OpenAPI document of the portal's own API (docs/api.md), for anyone signed in.
export const GET = withRole('browse', () => portalDocumentResponse());
