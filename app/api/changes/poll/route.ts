import { pollResponse } from '@/lib/http/changes';
import { withRole } from '@/lib/http/index';

export const POST = withRole('poll', () => pollResponse());
