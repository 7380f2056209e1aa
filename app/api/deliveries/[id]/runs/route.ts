import { runsResponse } from '@/lib/deliveries/responses';
import { withRole } from '@/lib/http';

// A delivery's runs, newest first, each with its outcome; editors and admins.
export const GET = withRole<{ id: string }>('deliveries', (_request, _session, { id }) => runsResponse(id));
