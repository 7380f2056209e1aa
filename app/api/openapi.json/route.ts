import { withRole } from '@/lib/http/index';
import { portalDocumentResponse } from '@/lib/http/openapi';

// The OpenAPI document of the portal's own API (docs/api.md), for anyone signed in.
export const GET = withRole('browse', () => portalDocumentResponse());
