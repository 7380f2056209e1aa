import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { PortalFrame } from '@/components/portal-frame';
import { getPortalSession } from '@/lib/http/session';
import { themeOf } from '@/lib/theme';
import { PREFERENCE_COOKIES, PREFERENCES_OF_COOKIE } from '@/lib/vocabulary/preferences';
import { preferencesTag } from '@/lib/preferences/server';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Picks Partner Portal', template: '%s · Picks Partner Portal' },
  description: 'Licence, picks, results and exports for partners of the Licensed Sports Picks API.',
  referrer: 'no-referrer',
  icons: { icon: '/icon.svg' },
};

/**
 * The frame (header, navigation, <main>) is drawn here for anyone signed in, so that the 404, 403 and error
 * pages, which Next.js renders inside this layout, sit in it without drawing it again: Next.js puts those
 * pages in every answer, ready for use, and a frame in each of them would be rendered and sent every time.
 */
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // The person's theme (lib/preferences; none: the system's), and whether this browser holds their preferences yet.
  const jar = await cookies();
  const theme = themeOf(jar.get(PREFERENCE_COOKIES.theme)?.value);
  const session = await getPortalSession();
  return (
    <html
      lang="en"
      data-theme={theme === 'system' ? undefined : theme}
      data-density={jar.get(PREFERENCE_COOKIES.density)?.value === 'comfortable' ? 'comfortable' : undefined}
    >
      <body className="min-h-screen">
        {session ? (
          <PortalFrame
            user={session.user}
            theme={theme}
            navIcons={jar.get(PREFERENCE_COOKIES.nav)?.value === 'icons'}
            syncPreferences={jar.get(PREFERENCES_OF_COOKIE)?.value !== preferencesTag(session.user.email)}
          >
            {children}
          </PortalFrame>
        ) : (
          children
        )}
      </body>
    </html>
  );
}
