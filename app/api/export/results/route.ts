import { exportResponse } from '@/lib/http/export';
import { clientAddress } from '@/lib/auth/client-address';
import { withRole } from '@/lib/http/index';

// The whole filtered results set as a streamed CSV or JSON file; editors and admins only.
export const GET = withRole('export', (request, session) =>
  exportResponse('results', request, session.user, clientAddress(request.headers)),
);
