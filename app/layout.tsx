import type { Metadata } from 'next';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Picks Partner Portal', template: '%s · Picks Partner Portal' },
  description: 'Licence, picks, results and exports for partners of the Licensed Sports Picks API.',
  referrer: 'no-referrer',
  icons: { icon: '/icon.svg' },
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen">{children}</body>
    </html>
  );
}
