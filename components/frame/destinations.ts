import { can, type Capability, type Role } from '@/lib/vocabulary/roles';
import { defaultHref } from '@/lib/date-presets';

/**
 * Where the navigation leads, in the groups people think in: the data, what watches it, what takes it
 * elsewhere, and the administration. Each destination shows to the roles whose capability it needs.
 */

/** Names of the icons components/frame/nav-icons.tsx draws (a server component cannot hand a client one a function). */
export type NavIcon =
  | 'overview'
  | 'licence'
  | 'picks'
  | 'results'
  | 'changes'
  | 'history'
  | 'health'
  | 'coverage'
  | 'alerts'
  | 'exports'
  | 'deliveries'
  | 'tokens'
  | 'developers'
  | 'users'
  | 'audit'
  | 'proofs';

export interface Destination {
  href: string;
  label: string;
  icon: NavIcon;
}
export interface DestinationGroup {
  label: string;
  links: Destination[];
}

const GROUPS: { label: string; links: (Destination & { needs: Capability })[] }[] = [
  {
    label: 'Data',
    links: [
      { href: '/', label: 'Overview', icon: 'overview', needs: 'browse' },
      { href: '/picks', label: 'Picks', icon: 'picks', needs: 'browse' },
      { href: '/results', label: 'Results', icon: 'results', needs: 'browse' },
      { href: '/changes', label: 'Changes', icon: 'changes', needs: 'browse' },
      { href: '/history', label: 'History', icon: 'history', needs: 'browse' },
    ],
  },
  {
    label: 'Licence and feed',
    links: [
      { href: '/licence', label: 'Licence', icon: 'licence', needs: 'browse' },
      { href: '/coverage', label: 'Coverage', icon: 'coverage', needs: 'coverage' },
      { href: '/health', label: 'Health', icon: 'health', needs: 'browse' },
      { href: '/alerts', label: 'Alerts', icon: 'alerts', needs: 'alerts' },
    ],
  },
  {
    label: 'Deliver',
    links: [
      { href: '/exports', label: 'My exports', icon: 'exports', needs: 'export' },
      { href: '/deliveries', label: 'Deliveries', icon: 'deliveries', needs: 'deliveries' },
      { href: '/tokens', label: 'Tokens', icon: 'tokens', needs: 'tokens' },
      { href: '/developers', label: 'API reference', icon: 'developers', needs: 'tokens' },
    ],
  },
  {
    label: 'Administration',
    links: [
      { href: '/admin/users', label: 'Users', icon: 'users', needs: 'users' },
      { href: '/admin/audit', label: 'Audit', icon: 'audit', needs: 'audit' },
      { href: '/admin/proofs', label: 'Proofs', icon: 'proofs', needs: 'audit' },
    ],
  },
];

/** The groups a role sees (empty groups left out); picks and results link straight to their default window. */
export function destinationsFor(role: Role): DestinationGroup[] {
  return GROUPS.map((group) => ({
    label: group.label,
    links: group.links
      .filter((link) => can(role, link.needs))
      .map(({ href, label, icon }) => ({
        href: href === '/picks' ? defaultHref('picks') : href === '/results' ? defaultHref('results') : href,
        label,
        icon,
      })),
  })).filter((group) => group.links.length > 0);
}

const ACTIONS: (Destination & { needs: Capability })[] = [
  { href: '/deliveries#new-delivery', label: 'New delivery', icon: 'deliveries', needs: 'deliveries' },
  { href: '/tokens#token-form', label: 'Make a token', icon: 'tokens', needs: 'tokens' },
  { href: '/admin/users#add-user', label: 'Add a user', icon: 'users', needs: 'users' },
  { href: '/admin/proofs#check-file', label: 'Check a file', icon: 'proofs', needs: 'audit' },
];

/** The actions a role may start from the command palette. */
export function actionsFor(role: Role): Destination[] {
  return ACTIONS.filter((action) => can(role, action.needs)).map(({ href, label, icon }) => ({ href, label, icon }));
}
