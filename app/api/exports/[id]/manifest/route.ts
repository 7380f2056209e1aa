import { manifestResponse } from '@/lib/http/audit';
import { withRole } from '@/lib/http/index';

// One export's manifest as canonical JSON (filters, count, sha256, record ids, licence attestation, times): its own editor, or an admin.
export const GET = withRole<{ id: string }>('export', (_request, session, { id }) => manifestResponse(id, session, 'json'));
