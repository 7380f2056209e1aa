import { runsResponse } from '@/lib/deliveries/api';
import { withRole } from '@/lib/http';

// A delivery's runs, newest first, each with its outcome; editors and admins.
export const GET = withRole('deliveries', (request) =>
  runsResponse(decodeURIComponent(new URL(request.url).pathname.split('/').at(-2) ?? '')),
);
