import { runCorrectionsResponse } from '@/lib/history/reconcile-responses';
import { withRole } from '@/lib/http';

// Only the records of a run that changed since it delivered them (withdrawn ones by id), as an audited CSV or JSON file.
export const GET = withRole<{ id: string; runId: string }>('deliveries', (request, session, { id, runId }) =>
  runCorrectionsResponse(request, session.user, id, runId),
);
