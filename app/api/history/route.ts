import { clientAddress } from '@/lib/auth/client-address';
import { historyFileResponse } from '@/lib/http/history';
import { withRole } from '@/lib/http/index';

// The records as the portal knew them at a moment (asOf=), or the difference between two (from=&to=), as an audited, signed CSV or JSON file.
export const GET = withRole('export', (request, session) => historyFileResponse(request, session.user, clientAddress(request.headers)));
