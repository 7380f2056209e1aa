import { PortalLink } from '@/components/portal-link';
import { can, type Capability, type Role } from '@/lib/vocabulary/roles';
import { SignOutButton } from '@/components/auth/sign-out-button';
import { MainNav } from '@/components/main-nav';
import { Badge } from '@/components/ui/badge';
import { defaultHref } from '@/lib/date-presets';
import { ThemeSwitch } from '@/components/theme-switch';
import { TimeZoneSwitch } from '@/components/time-zone-switch';
import type { Theme } from '@/lib/theme';

const LINKS: { href: string; label: string; needs: Capability }[] = [
  { href: '/', label: 'Overview', needs: 'browse' },
  { href: '/licence', label: 'Licence', needs: 'browse' },
  { href: '/picks', label: 'Picks', needs: 'browse' },
  { href: '/results', label: 'Results', needs: 'browse' },
  { href: '/changes', label: 'Changes', needs: 'browse' },
  { href: '/history', label: 'History', needs: 'browse' },
  { href: '/health', label: 'Health', needs: 'browse' },
  { href: '/coverage', label: 'Coverage', needs: 'coverage' },
  { href: '/exports', label: 'My exports', needs: 'export' },
  { href: '/deliveries', label: 'Deliveries', needs: 'deliveries' },
  { href: '/tokens', label: 'Tokens', needs: 'tokens' },
  { href: '/admin/users', label: 'Users', needs: 'users' },
  { href: '/admin/audit', label: 'Audit', needs: 'audit' },
  { href: '/admin/proofs', label: 'Proofs', needs: 'audit' },
  { href: '/alerts', label: 'Alerts', needs: 'alerts' },
];

export function AppHeader({ email, role, theme }: { email: string; role: Role; theme: Theme }) {
  // Picks and results link straight to their default window (a bare /picks would be redirected there).
  const links = LINKS.filter((link) => can(role, link.needs)).map(({ href, label }) => ({
    href: href === '/picks' ? defaultHref('picks') : href === '/results' ? defaultHref('results') : href,
    label,
  }));
  return (
    <header className="relative border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-screen-2xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <PortalLink href="/" className="flex items-center gap-2 font-semibold text-slate-900">
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img src="/icon.svg" alt="" width={28} height={28} />
          <span className="hidden sm:inline">Picks Partner Portal</span>
          <span className="sm:hidden">Picks Portal</span>
        </PortalLink>
        <MainNav links={links} />
        <div className="ml-auto mr-20 flex min-w-0 flex-wrap items-center justify-end gap-2 text-sm md:mr-0">
          <span className="hidden min-w-0 truncate text-slate-600 2xl:inline" title={email}>
            {email}
          </span>
          <Badge tone="brand">{role}</Badge>
          <TimeZoneSwitch />
          <ThemeSwitch initial={theme} />
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
