import type { ReactNode } from 'react';
// eslint-disable-next-line no-restricted-imports -- built apart from the portal: it may import nothing of it
import Link from 'next/link';
import {
  Activity,
  BadgeCheck,
  Bell,
  BookOpenText,
  ChevronDown,
  ClipboardList,
  FileDown,
  FileText,
  GitCompareArrows,
  History,
  House,
  KeyRound,
  Map as MapIcon,
  Menu,
  PanelLeftClose,
  Send,
  Target,
  Trophy,
  Users,
} from 'lucide-static';

/**
 * The markup of the floor of a signed-in frame (./layout.tsx draws it on the server; ../framed-client/ inside a
 * client component with the state the portal's frame keeps): a skip link; a header with the menu button, the
 * portal's name and the account button; the navigation's four groups of sixteen destinations with their icons;
 * the icons-only button; <main>. `on*` handlers are given only by the client variant.
 */

const GROUPS: [string, [string, string, string][]][] = [
  [
    'Data',
    [
      ['/', 'Overview', House],
      ['/picks', 'Picks', Target],
      ['/results', 'Results', Trophy],
      ['/changes', 'Changes', GitCompareArrows],
      ['/history', 'History', History],
    ],
  ],
  [
    'Licence and feed',
    [
      ['/licence', 'Licence', FileText],
      ['/coverage', 'Coverage', MapIcon],
      ['/health', 'Health', Activity],
      ['/alerts', 'Alerts', Bell],
    ],
  ],
  [
    'Deliver',
    [
      ['/exports', 'My exports', FileDown],
      ['/deliveries', 'Deliveries', Send],
      ['/tokens', 'Tokens', KeyRound],
      ['/developers', 'API reference', BookOpenText],
    ],
  ],
  [
    'Administration',
    [
      ['/admin/users', 'Users', Users],
      ['/admin/audit', 'Audit', ClipboardList],
      ['/admin/proofs', 'Proofs', BadgeCheck],
    ],
  ],
];

/** lucide-static's markup on one line, as the portal sets it (components/ui/icon.tsx). */
const compact = (svg: string) =>
  svg
    .replace(/\s+/g, ' ')
    .replace(/\s*(\/?>)\s*/g, '$1')
    .trim();

const icon = (svg: string, className = 'size-4') => (
  <span aria-hidden className={`inline-flex shrink-0 [&>svg]:size-full ${className}`} dangerouslySetInnerHTML={{ __html: compact(svg) }} />
);

export interface FrameState {
  menuOpen?: boolean;
  folded?: boolean;
  accountOpen?: boolean;
  onMenu?: () => void;
  onFold?: () => void;
  onAccount?: () => void;
}

export function FrameMarkup({ email, children, state = {} }: { email: string; children: ReactNode; state?: FrameState }) {
  return (
    <>
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-2 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:shadow"
      >
        Skip to content
      </a>
      <header className="sticky top-0 z-30 flex h-14 items-center gap-3 border-b border-slate-200 bg-white px-4">
        <button
          type="button"
          className="-ml-1 inline-flex items-center gap-1.5 rounded-md border border-slate-300 px-2.5 py-1.5 text-sm font-medium text-slate-700 lg:hidden"
          aria-expanded={state.menuOpen ?? false}
          aria-controls="main-nav"
          onClick={state.onMenu}
        >
          {icon(Menu)}
          Menu
        </button>
        <Link href="/" prefetch={false} className="flex min-w-0 items-center gap-2 font-semibold text-slate-900">
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img src="/icon.svg" alt="" width={28} height={28} />
          <span className="hidden truncate sm:inline">Picks Partner Portal</span>
          <span className="truncate sm:hidden">Picks Portal</span>
        </Link>
        <div className="ml-auto">
          <button
            type="button"
            aria-expanded={state.accountOpen ?? false}
            onClick={state.onAccount}
            className="flex max-w-72 items-center gap-2 rounded-md px-2 py-1 text-sm text-slate-700 hover:bg-slate-100"
          >
            <span
              aria-hidden
              className="grid size-7 shrink-0 place-items-center rounded-full bg-brand-50 text-xs font-semibold uppercase text-brand-700"
            >
              {email.slice(0, 1)}
            </span>
            <span className="sr-only">Account: </span>
            <span className="hidden min-w-0 truncate md:inline">{email}</span>
            {icon(ChevronDown, 'size-4 text-slate-500')}
          </button>
        </div>
      </header>
      <div className="flex">
        <nav
          id="main-nav"
          aria-label="Main"
          className="hidden flex-col overflow-y-auto border-r border-slate-200 bg-white text-sm lg:sticky lg:top-14 lg:flex lg:h-[calc(100vh-3.5rem)] lg:w-48"
        >
          <div className="flex-1 space-y-4 px-2 py-3">
            {GROUPS.map(([label, links]) => (
              <div key={label} role="group" aria-label={label}>
                <p className="px-3 pb-1 text-xs font-medium text-slate-500">{label}</p>
                <ul className="space-y-0.5">
                  {links.map(([href, name, svg]) => (
                    <li key={href}>
                      <a
                        href={href}
                        className="flex items-center gap-3 rounded-md px-3 py-1.5 text-slate-700 hover:bg-slate-100 hover:text-slate-900 aria-[current=page]:bg-brand-50 aria-[current=page]:font-semibold aria-[current=page]:text-brand-700"
                      >
                        {icon(svg)}
                        <span>{name}</span>
                      </a>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </div>
          <button
            type="button"
            aria-pressed={state.folded ?? false}
            onClick={state.onFold}
            className="m-2 hidden items-center gap-3 rounded-md px-3 py-1.5 text-slate-600 hover:bg-slate-100 lg:flex"
          >
            {icon(PanelLeftClose)}
            <span>Icons only</span>
          </button>
        </nav>
        <main id="main" tabIndex={-1} className="min-w-0 flex-1 px-4 py-4 focus:outline-none lg:px-6">
          <div className="mx-auto max-w-screen-2xl">{children}</div>
        </main>
      </div>
    </>
  );
}
