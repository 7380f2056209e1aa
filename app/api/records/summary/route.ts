import { withRole } from '@/lib/http/index';
import { summaryResponse } from '@/lib/http/records';

// What the filtered records add up to (counts, outcomes, hit rate by tier and league); every signed-in role.
export const GET = withRole('browse', (request) => summaryResponse(request));
