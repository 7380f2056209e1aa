import { runResponse } from '@/lib/http/deliveries';
import { withRole } from '@/lib/http/index';

// Run now (202 with the run's id; its outcome in …/runs); editors and admins.
export const POST = withRole<{ id: string }>('deliveries', (_request, _session, { id }) => runResponse(id));
