import { exportReconcileResponse } from '@/lib/http/reconcile';
import { withRole } from '@/lib/http/index';

// One export's records against what the portal knows now: unchanged, and each changed one with how it changed.
export const GET = withRole<{ id: string }>('export', (_request, session, { id }) => exportReconcileResponse(id, session));
