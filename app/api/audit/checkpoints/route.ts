import { checkpointsResponse } from '@/lib/http/audit';
import { withRole } from '@/lib/http/index';

// The audit trail's signed checkpoints, every one, to keep outside the portal's database (admins only).
export const GET = withRole('audit', () => checkpointsResponse());
