import { withRole } from '@/lib/http';
import { summaryResponse } from '@/lib/records/responses';

// What the filtered records add up to (counts, outcomes, hit rate by tier and league); every signed-in role.
export const GET = withRole('browse', (request) => summaryResponse(request));
