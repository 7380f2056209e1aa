import { testResponse } from '@/lib/http/deliveries';
import { withRole } from '@/lib/http/index';

// Test connection: tries the destination without delivering (object storage); editors and admins.
export const POST = withRole<{ id: string }>('deliveries', (_request, session, { id }) => testResponse(id, session.user));
