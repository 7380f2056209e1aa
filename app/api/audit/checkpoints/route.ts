import { checkpointsResponse } from '@/lib/audit/responses';
import { withRole } from '@/lib/http';

// The audit trail's signed checkpoints, every one, to keep outside the portal's database (admins only).
export const GET = withRole('audit', () => checkpointsResponse());
