import { auditResponse } from '@/lib/audit/responses';
import { withRole } from '@/lib/http';

// The audit trail, filtered, as a streamed CSV or JSON file; admins only.
export const GET = withRole('audit', (request, session) => auditResponse(request, session.user));
