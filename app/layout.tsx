import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { themeOf } from '@/lib/theme';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Picks Partner Portal', template: '%s · Picks Partner Portal' },
  description: 'Licence, picks, results and exports for partners of the Licensed Sports Picks API.',
  referrer: 'no-referrer',
  icons: { icon: '/icon.svg' },
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // The person's theme for this browser (components/theme-switch.tsx); none: the system's.
  const theme = themeOf((await cookies()).get('theme')?.value);
  return (
    <html lang="en" data-theme={theme === 'system' ? undefined : theme}>
      <body className="min-h-screen">{children}</body>
    </html>
  );
}
