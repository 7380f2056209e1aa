import { runsResponse } from '@/lib/http/deliveries';
import { withRole } from '@/lib/http/index';

// A delivery's runs, newest first, each with its outcome; editors and admins.
export const GET = withRole<{ id: string }>('deliveries', (_request, _session, { id }) => runsResponse(id));
