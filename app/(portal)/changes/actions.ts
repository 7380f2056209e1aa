'use server';

import { redirect } from 'next/navigation';
import { sessionMay } from '@/lib/http/session';
import { pollNow } from '@/lib/changes/feed';
import { toAppError } from '@/lib/errors';

/** "Poll now" on /changes: admins only, checked on every call. */
export async function pollNowAction(): Promise<void> {
  const session = await sessionMay('poll');
  if (!session) redirect('/changes?polled=refused');
  let outcome: string;
  let since = Date.now();
  try {
    const asked = await pollNow();
    outcome = asked.poll;
    since = asked.sinceMs;
  } catch (error) {
    outcome = toAppError(error).code === 'STORE_UNAVAILABLE' ? 'store' : 'failed';
  }
  // The start of the poll that answers lets the page tell when it has ended (it refreshes itself until then).
  redirect(`/changes?polled=${outcome}&at=${since}`);
}
