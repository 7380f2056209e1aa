import { withRole } from '@/lib/http';
import { tryResponse } from '@/lib/tokens/try';

// The API reference's Try (/developers): API v1 asked as one of the signed-in person's own tokens (docs/api-v1.md).
export const GET = withRole<{ tokenId: string }>('tokens', (request, session, { tokenId }) => tryResponse(request, session.user, tokenId));
