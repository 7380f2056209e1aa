'use client';

import { usePathname } from 'next/navigation';
import { useState } from 'react';
import { PortalLink } from '@/components/portal-link';

/**
 * The main navigation: the current page marked (`aria-current="page"`), and on small screens folded
 * behind a Menu button, so the header is one row on a phone.
 */
export function MainNav({ links }: { links: { href: string; label: string }[] }) {
  const pathname = usePathname();
  // Open on the page it was opened on: a navigation closes it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const current = (href: string) => {
    const path = href.split('?')[0]!;
    return path === '/' ? pathname === '/' : pathname === path || pathname.startsWith(`${path}/`);
  };
  return (
    <nav aria-label="Main" className="order-last w-full text-sm md:order-none md:w-auto">
      <button
        type="button"
        className="absolute right-4 top-3 rounded-md border border-slate-300 px-3 py-1.5 font-medium text-slate-700 md:hidden"
        aria-expanded={open}
        aria-controls="main-nav-links"
        onClick={() => setOpenOn(open ? null : pathname)}
      >
        {open ? 'Close' : 'Menu'}
      </button>
      <ul id="main-nav-links" className={`${open ? 'flex' : 'hidden'} flex-col gap-1 pt-2 md:flex md:flex-row md:flex-wrap md:pt-0`}>
        {links.map((link) => (
          <li key={link.href}>
            <PortalLink
              href={link.href}
              aria-current={current(link.href) ? 'page' : undefined}
              className="block rounded-md px-3 py-1.5 text-slate-700 hover:bg-slate-100 hover:text-slate-900 aria-[current=page]:bg-brand-50 aria-[current=page]:font-semibold aria-[current=page]:text-brand-700"
            >
              {link.label}
            </PortalLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
