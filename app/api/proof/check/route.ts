import { withRole } from '@/lib/http/index';
import { checkFileResponse } from '@/lib/proof/check';

// "Check a file" (/admin/proofs): a file and its JWS checked by the recipients' verifier against the published keys.
export const POST = withRole('audit', (request) => checkFileResponse(request));
