import { withRole } from '@/lib/http';
import { alertsResponse } from '@/lib/alerts/responses';

// The notification log: every alert, its recipients, attempts and outcome; admins.
export const GET = withRole('alerts', () => alertsResponse());
