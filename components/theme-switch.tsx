'use client';

import { useState } from 'react';
import type { Theme } from '@/lib/theme';
import { savePreferences } from '@/components/preferences';

/**
 * Light, dark, or the system's choice (the default), kept with the person and in this browser's cookie
 * (components/preferences.ts), applied at once: the root layout sets it on <html> for the next pages
 * (app/dark.css reads it).
 */
export function ThemeSwitch({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState<Theme>(initial);
  return (
    <select
      aria-label="Theme"
      value={theme}
      onChange={(event) => {
        const next = event.target.value as Theme;
        setTheme(next);
        void savePreferences({ theme: next });
        if (next === 'system') delete document.documentElement.dataset.theme;
        else document.documentElement.dataset.theme = next;
      }}
      className="w-full rounded-md border border-slate-300 bg-white px-1.5 py-1 text-xs text-slate-700"
    >
      <option value="system">System theme</option>
      <option value="light">Light</option>
      <option value="dark">Dark</option>
    </select>
  );
}
