'use client';

import { useSyncExternalStore } from 'react';

const never = () => () => undefined;

/**
 * False in the server's HTML and until React has hydrated the page, true after: a button whose click is handled by
 * script is disabled until the script can handle it, so a click right after load is never swallowed.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
