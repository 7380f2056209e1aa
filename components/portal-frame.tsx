import type { ReactNode } from 'react';
import { AfterLoad } from '@/components/after-load';
import { AccountMenu } from '@/components/frame/account-menu';
import { CommandPalette } from '@/components/frame/command-palette';
import { actionsFor, destinationsFor } from '@/components/frame/destinations';
import { Shell } from '@/components/frame/shell';
import type { Role } from '@/lib/vocabulary/roles';
import type { Theme } from '@/lib/theme';

/** The signed-in frame: a skip link, the header, the navigation of the role, the page, and the after-load script. */
export function PortalFrame({
  user,
  theme,
  navIcons,
  syncPreferences,
  children,
}: {
  user: { email: string; role: Role };
  theme: Theme;
  /** The person keeps the sidebar as icons only. */
  navIcons: boolean;
  /** This browser's preference cookies are not this person's (a sign-in): fetch theirs. */
  syncPreferences: boolean;
  children: ReactNode;
}) {
  const groups = destinationsFor(user.role);
  return (
    <>
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-2 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:shadow"
      >
        Skip to content
      </a>
      <Shell
        groups={groups}
        find={<CommandPalette groups={groups} actions={actionsFor(user.role)} />}
        icons={navIcons}
        account={<AccountMenu email={user.email} role={user.role} theme={theme} />}
      >
        {children}
      </Shell>
      <AfterLoad syncPreferences={syncPreferences} />
    </>
  );
}
