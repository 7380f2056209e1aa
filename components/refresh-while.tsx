'use client';

import { useRouter } from 'next/navigation';
import { useEvery } from './use-every';

/**
 * Re-renders the page from the server every `everyMs` while `active` (the server says something is still
 * running), for at most `forMs`: a status line that says "running" changes by itself when the work ends.
 */
export function RefreshWhile({ active, everyMs = 2_000, forMs = 120_000 }: { active: boolean; everyMs?: number; forMs?: number }) {
  const router = useRouter();
  useEvery(active, everyMs, () => router.refresh(), forMs);
  return null;
}
