/** Roles and what each may do. Pages and route handlers ask `can(role, capability)`, never compare role names. */

export const ROLES = ['viewer', 'editor', 'manager', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export type Capability = 'browse' | 'export' | 'coverage' | 'audit' | 'users' | 'poll' | 'deliveries' | 'alerts' | 'tokens';

const GRANTS: Record<Role, readonly Capability[]> = {
  viewer: ['browse'],
  editor: ['browse', 'export', 'deliveries', 'tokens'],
  manager: ['browse', 'coverage'],
  admin: ['browse', 'export', 'coverage', 'audit', 'users', 'poll', 'deliveries', 'alerts', 'tokens'],
};

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function can(role: Role | null | undefined, capability: Capability): boolean {
  return role ? GRANTS[role].includes(capability) : false;
}

/** The roles that have a capability (the portal API's document says it of each operation). */
export const rolesWith = (capability: Capability): Role[] => ROLES.filter((role) => GRANTS[role].includes(capability));
