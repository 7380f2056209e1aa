import { recordHistoryResponse } from '@/lib/http/history';
import { withRole } from '@/lib/http/index';

// One record's versions as the portal saw them, each with the fields that changed from the one before.
export const GET = withRole<{ id: string }>('browse', (_request, _session, { id }) => recordHistoryResponse(id));
