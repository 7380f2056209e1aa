import { PortalLink } from '@/components/portal-link';
import { can, type Capability, type Role } from '@/lib/auth/roles';
import { SignOutButton } from '@/components/auth/sign-out-button';

const LINKS: { href: string; label: string; needs: Capability }[] = [
  { href: '/', label: 'Overview', needs: 'browse' },
  { href: '/licence', label: 'Licence', needs: 'browse' },
  { href: '/picks', label: 'Picks', needs: 'browse' },
  { href: '/results', label: 'Results', needs: 'browse' },
  { href: '/changes', label: 'Changes', needs: 'browse' },
  { href: '/coverage', label: 'Coverage', needs: 'coverage' },
  { href: '/exports', label: 'My exports', needs: 'export' },
  { href: '/deliveries', label: 'Deliveries', needs: 'deliveries' },
  { href: '/admin/users', label: 'Users', needs: 'users' },
  { href: '/admin/audit', label: 'Audit', needs: 'audit' },
];

export function AppHeader({ email, role }: { email: string; role: Role }) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-screen-2xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <PortalLink href="/" className="flex items-center gap-2 font-semibold text-slate-900">
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img src="/icon.svg" alt="" width={28} height={28} />
          Picks Partner Portal
        </PortalLink>
        <nav aria-label="Main" className="flex flex-wrap gap-1 text-sm">
          {LINKS.filter((link) => can(role, link.needs)).map((link) => (
            <PortalLink
              key={link.href}
              href={link.href}
              className="rounded-md px-3 py-1.5 text-slate-700 hover:bg-slate-100 hover:text-slate-900"
            >
              {link.label}
            </PortalLink>
          ))}
        </nav>
        <div className="ml-auto flex items-center gap-3 text-sm">
          <span className="text-slate-600">
            {email} <span className="ml-1 rounded-full bg-brand-50 px-2 py-0.5 text-xs font-medium text-brand-700">{role}</span>
          </span>
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
