import { withRole } from '@/lib/http';
import { subscriptionsResponse } from '@/lib/alerts/responses';

// Everyone's choice of alert emails (their role's default until they choose); admins.
export const GET = withRole('alerts', () => subscriptionsResponse());
