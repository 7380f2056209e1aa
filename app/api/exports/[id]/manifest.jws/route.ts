import { manifestResponse } from '@/lib/audit/responses';
import { withRole } from '@/lib/http';

// The manifest's signature: a compact JWS (EdDSA, kid in its header) whose payload is exactly the manifest's bytes.
export const GET = withRole<{ id: string }>('export', (_request, session, { id }) => manifestResponse(id, session, 'jws'));
