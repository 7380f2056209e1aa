import { clientAddress } from '@/lib/auth/client-address';
import { changesResponse } from '@/lib/http/changes';
import { withRole } from '@/lib/http/index';

// The change feed's entries (since=, filters) as a streamed, audited JSON or CSV file; editors and admins only.
export const GET = withRole('export', (request, session) => changesResponse(request, session.user, clientAddress(request.headers)));
