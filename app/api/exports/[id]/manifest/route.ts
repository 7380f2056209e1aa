import { manifestResponse } from '@/lib/audit/manifest';
import { withRole } from '@/lib/http';

// One export's manifest (filters, count, sha256, licence, times): its own editor, or an admin.
export const GET = withRole('export', async (request, session) =>
  manifestResponse(new URL(request.url).pathname.split('/').at(-2) ?? '', session),
);
