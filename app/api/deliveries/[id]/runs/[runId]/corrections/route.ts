import { runCorrectionsResponse } from '@/lib/http/reconcile';
import { withRole } from '@/lib/http/index';

// Only the records of a run that changed since it delivered them (withdrawn ones by id), as an audited CSV or JSON file.
export const GET = withRole<{ id: string; runId: string }>('deliveries', (request, session, { id, runId }) =>
  runCorrectionsResponse(request, session.user, id, runId),
);
