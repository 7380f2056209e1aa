import { rm } from 'node:fs/promises';
import { ensureDemoUsers } from '../../lib/auth/demo-users';
import { addUser } from '../../lib/auth/users';
import { STAFF } from './fixtures';
import { E2E } from './ports';

/**
 * The portals that point at an upstream by address are "real upstream" portals: demo accounts are refused
 * there. They get ordinary (non-demo) accounts, one per role, in a users file of their own, beside the
 * demo accounts that a file carried over from a sandbox setup would hold.
 */
export default async function globalSetup() {
  await rm(E2E.staffUsersFile, { force: true });
  for (const [role, user] of Object.entries(STAFF))
    await addUser(E2E.staffUsersFile, user.email, role as keyof typeof STAFF, user.password);
  // A users file carried over from a sandbox setup: its demo accounts must be refused by these portals.
  await ensureDemoUsers(E2E.staffUsersFile);
}
