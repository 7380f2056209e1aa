import { auditResponse } from '@/lib/http/audit';
import { withRole } from '@/lib/http/index';

// The audit trail, filtered, as a streamed CSV or JSON file; admins only.
export const GET = withRole('audit', (request, session) => auditResponse(request, session.user));
