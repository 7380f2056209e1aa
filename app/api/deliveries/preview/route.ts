import { previewResponse } from '@/lib/deliveries/responses';
import { withRole } from '@/lib/http';

// How many records a delivery's filters match now, before saving it; editors and admins.
export const GET = withRole('deliveries', (request, session) => previewResponse(request, session.user));
