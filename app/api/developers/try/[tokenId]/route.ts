import { withRole } from '@/lib/http/index';
import { tryResponse } from '@/lib/http/try-v1';

// The API reference's Try (/developers): API v1 asked as one of the signed-in person's own tokens (docs/api-v1.md).
export const GET = withRole<{ tokenId: string }>('tokens', (request, session, { tokenId }) => tryResponse(request, session.user, tokenId));
