import { previewResponse } from '@/lib/http/deliveries';
import { withRole } from '@/lib/http/index';

// How many records a delivery's filters match now, before saving it; editors and admins.
export const GET = withRole('deliveries', (request, session) => previewResponse(request, session.user));
