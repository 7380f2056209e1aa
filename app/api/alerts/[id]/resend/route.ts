import { withRole } from '@/lib/http/index';
import { resendResponse } from '@/lib/http/alerts';

// "Send again": the alert goes out at the polling instance's next check; admins.
export const POST = withRole<{ id: string }>('alerts', (_request, session, { id }) => resendResponse(decodeURIComponent(id), session));
