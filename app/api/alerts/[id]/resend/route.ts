import { withRole } from '@/lib/http';
import { resendResponse } from '@/lib/alerts/responses';

// "Send again": the alert goes out at the polling instance's next check; admins.
export const POST = withRole<{ id: string }>('alerts', (_request, session, { id }) => resendResponse(decodeURIComponent(id), session));
