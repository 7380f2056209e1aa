'use client';

import { useEffect } from 'react';

/** While `active`, Escape anywhere on the page calls `onEscape` (a drawer, a sheet or a menu closing). */
export function useEscape(active: boolean, onEscape: () => void): void {
  useEffect(() => {
    if (!active) return;
    const escape = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onEscape();
    };
    document.addEventListener('keydown', escape);
    return () => document.removeEventListener('keydown', escape);
  }, [active, onEscape]);
}
