import { manifestResponse } from '@/lib/http/audit';
import { withRole } from '@/lib/http/index';

// The manifest's signature: a compact JWS (EdDSA, kid in its header) whose payload is exactly the manifest's bytes.
export const GET = withRole<{ id: string }>('export', (_request, session, { id }) => manifestResponse(id, session, 'jws'));
