import { withRole } from '@/lib/http/index';
import { subscriptionsResponse } from '@/lib/http/alerts';

// Everyone's choice of alert emails (their role's default until they choose); admins.
export const GET = withRole('alerts', () => subscriptionsResponse());
