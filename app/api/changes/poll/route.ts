import { pollNow } from '@/lib/changes/start';
import { withRole } from '@/lib/http';

// "Poll now" for scripts: the change feed polls at once (or at the lease holder's next check); admins only.
export const POST = withRole('poll', async () =>
  Response.json({ poll: await pollNow() }, { status: 202, headers: { 'Cache-Control': 'no-store' } }),
);
