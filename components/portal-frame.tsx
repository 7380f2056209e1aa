import type { ReactNode } from 'react';
import { AfterLoad } from '@/components/after-load';
import { AppHeader } from '@/components/app-header';
import type { Role } from '@/lib/vocabulary/roles';
import type { Theme } from '@/lib/theme';

/** The signed-in frame: a skip link, the header with the navigation, the page, and the after-load script. */
export function PortalFrame({
  user,
  theme,
  syncPreferences,
  children,
}: {
  user: { email: string; role: Role };
  theme: Theme;
  /** This browser's preference cookies are not this person's (a sign-in): fetch theirs. */
  syncPreferences: boolean;
  children: ReactNode;
}) {
  return (
    <>
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-2 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:shadow"
      >
        Skip to content
      </a>
      <AppHeader email={user.email} role={user.role} theme={theme} />
      <main id="main" tabIndex={-1} className="mx-auto max-w-screen-2xl px-4 py-6 focus:outline-none">
        {children}
      </main>
      <AfterLoad syncPreferences={syncPreferences} />
    </>
  );
}
