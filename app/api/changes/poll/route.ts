import { pollResponse } from '@/lib/changes/responses';
import { withRole } from '@/lib/http';

export const POST = withRole('poll', () => pollResponse());
