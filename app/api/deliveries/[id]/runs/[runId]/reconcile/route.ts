import { runReconcileResponse } from '@/lib/http/reconcile';
import { withRole } from '@/lib/http/index';

// One run's records against what the portal knows now: unchanged, and each changed one with how it changed.
export const GET = withRole<{ id: string; runId: string }>('deliveries', (_request, _session, { id, runId }) =>
  runReconcileResponse(id, runId),
);
