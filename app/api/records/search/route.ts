import { withRole } from '@/lib/http/index';
import { searchResponse } from '@/lib/http/records';

// Search, whole-set sort and paging by number from the portal's index of the licensed set; every signed-in role.
export const GET = withRole('browse', (request) => searchResponse(request));
