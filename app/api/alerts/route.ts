import { withRole } from '@/lib/http/index';
import { alertsResponse } from '@/lib/http/alerts';

// The notification log: every alert, its recipients, attempts and outcome; admins.
export const GET = withRole('alerts', () => alertsResponse());
