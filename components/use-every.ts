'use client';

import { useEffect, useRef } from 'react';

/**
 * Calls `work` every `everyMs` while `active`, for at most `forMs` (the browser's only timer: pages that
 * follow work still running). The latest `work` is called, so it may close over fresh state.
 */
export function useEvery(active: boolean, everyMs: number, work: () => void, forMs = Infinity): void {
  const latest = useRef(work);
  useEffect(() => {
    latest.current = work;
  });
  useEffect(() => {
    if (!active) return;
    const started = performance.now();
    const timer = setInterval(() => {
      if (performance.now() - started > forMs) clearInterval(timer);
      else latest.current();
    }, everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs, forMs]);
}
