'use client';

import { Menu, PanelLeftClose, PanelLeftOpen, X } from 'lucide-static';
import { usePathname, useRouter } from 'next/navigation';
import { useRef, useState, type ReactNode } from 'react';
import { navigateOnClick, PortalLink } from '@/components/portal-link';
import { useModal } from '@/components/ui/use-modal';
import { savePreferences } from '@/components/preferences';
import type { DestinationGroup } from './destinations';
import { NAV_ICONS } from './nav-icons';
import { Icon } from '@/components/ui/icon';

/**
 * The signed-in frame: a header of one row at every width (the portal's name, and the account menu), the
 * grouped navigation in a sidebar on wide screens (names, or icons only: remembered per person) and in a
 * drawer on narrower ones, opened by the header's Menu button. The current page is marked
 * (`aria-current="page"`); its links are plain anchors sharing one click handler (docs/adr/0019). The open
 * drawer holds the page like a modal (components/ui/use-modal.ts: the rest inert, focus inside); Escape, the
 * backdrop or its close button close it and give focus back to Menu; a navigation closes it.
 */
export function Shell({
  groups,
  icons: initialIcons,
  account,
  find,
  children,
}: {
  groups: DestinationGroup[];
  /** The person's choice: the sidebar as icons only. */
  icons: boolean;
  account: ReactNode;
  /** The command palette's button (and its dialog). */
  find: ReactNode;
  children: ReactNode;
}) {
  const pathname = usePathname();
  const router = useRouter();
  const follow = navigateOnClick((href) => router.push(href));
  // Open on the page it was opened on: a navigation closes it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const [icons, setIcons] = useState(initialIcons);
  const menuButton = useRef<HTMLButtonElement>(null);
  const nav = useRef<HTMLElement>(null);
  const backdrop = useRef<HTMLDivElement>(null);
  const { closeAndReturn } = useModal({
    open,
    close: () => setOpenOn(null),
    keep: [nav, backdrop],
    opener: menuButton,
    wideFrom: '(min-width: 1024px)',
    focusFirst: 'a[href]', // the first destination, not the drawer's close button
  });

  const current = (href: string) => {
    const path = href.split('?')[0]!;
    return path === '/' ? pathname === '/' : pathname === path || pathname.startsWith(`${path}/`);
  };
  const toggleIcons = () => {
    const next = !icons;
    setIcons(next);
    void savePreferences({ nav: next ? 'icons' : 'full' });
  };
  const narrow = icons && !open; // the drawer always shows names

  return (
    <>
      <header className="sticky top-0 z-30 flex h-14 items-center gap-3 border-b border-slate-200 bg-white px-4">
        <button
          ref={menuButton}
          type="button"
          className="-ml-1 inline-flex items-center gap-1.5 rounded-md border border-slate-300 px-2.5 py-1.5 text-sm font-medium text-slate-700 lg:hidden"
          aria-expanded={open}
          aria-controls="main-nav"
          onClick={() => setOpenOn(open ? null : pathname)}
        >
          <Icon svg={Menu} />
          Menu
        </button>
        <PortalLink href="/" className="flex min-w-0 items-center gap-2 font-semibold text-slate-900">
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img src="/icon.svg" alt="" width={28} height={28} />
          <span className="hidden truncate sm:inline">Picks Partner Portal</span>
          <span className="truncate sm:hidden">Picks Portal</span>
        </PortalLink>
        <div className="ml-auto flex items-center gap-2">
          {find}
          {account}
        </div>
      </header>
      <div className="flex">
        {open && <div ref={backdrop} aria-hidden className="fixed inset-0 z-40 bg-slate-950/40 lg:hidden" onClick={closeAndReturn} />}
        <nav
          ref={nav}
          id="main-nav"
          aria-label="Main"
          data-icons={narrow || undefined}
          className={`${open ? 'fixed inset-y-0 left-0 z-50 flex w-72 shadow-xl' : 'hidden'} flex-col overflow-y-auto border-r border-slate-200 bg-white text-sm lg:sticky lg:top-14 lg:z-auto lg:flex lg:h-[calc(100vh-3.5rem)] lg:shadow-none ${narrow ? 'lg:w-16' : 'lg:w-48'}`}
        >
          <div className="flex items-center justify-between border-b border-slate-200 px-4 py-3 lg:hidden">
            <span className="font-semibold text-slate-900">Menu</span>
            <button type="button" className="rounded-md p-1.5 text-slate-600 hover:bg-slate-100" onClick={closeAndReturn}>
              <Icon svg={X} />
              <span className="sr-only">Close the menu</span>
            </button>
          </div>
          <div className="flex-1 space-y-4 px-2 py-3">
            {groups.map((group) => (
              <div key={group.label} role="group" aria-label={group.label}>
                <p className={`px-3 pb-1 text-xs font-medium text-slate-500 ${narrow ? 'lg:sr-only' : ''}`}>{group.label}</p>
                <ul className="space-y-0.5">
                  {group.links.map((link) => (
                    <li key={link.href}>
                      <a
                        href={link.href}
                        onClick={follow}
                        title={narrow ? link.label : undefined}
                        aria-current={current(link.href) ? 'page' : undefined}
                        className="flex items-center gap-3 rounded-md px-3 py-1.5 text-slate-700 hover:bg-slate-100 hover:text-slate-900 aria-[current=page]:bg-brand-50 aria-[current=page]:font-semibold aria-[current=page]:text-brand-700"
                      >
                        <Icon svg={NAV_ICONS[link.icon]} />
                        <span className={narrow ? 'lg:sr-only' : undefined}>{link.label}</span>
                      </a>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </div>
          <button
            type="button"
            onClick={toggleIcons}
            aria-pressed={icons}
            className="m-2 hidden items-center gap-3 rounded-md px-3 py-1.5 text-slate-600 hover:bg-slate-100 lg:flex"
          >
            <Icon svg={icons ? PanelLeftOpen : PanelLeftClose} />
            <span className={narrow ? 'sr-only' : undefined}>Icons only</span>
          </button>
        </nav>
        <main id="main" tabIndex={-1} className="min-w-0 flex-1 px-4 py-4 focus:outline-none lg:px-6">
          <div className="mx-auto max-w-screen-2xl">{children}</div>
        </main>
      </div>
    </>
  );
}
