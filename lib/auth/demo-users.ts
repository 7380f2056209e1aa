import { addUser, findUser, listUsers } from './users';
import { ROLES, type Role } from '../vocabulary/roles';

/** Sandbox-only demo accounts, one per role, marked as such in the store. */
export const DEMO_USERS: { email: string; role: Role; password: string }[] = ROLES.map((role) => ({
  email: `${role}@demo.picks.test`,
  role,
  password: `demo-${role}-pass`,
}));

export async function ensureDemoUsers() {
  for (const user of DEMO_USERS) {
    if (!(await findUser(user.email))) await addUser(user.email, user.role, user.password, { demo: true });
  }
  return DEMO_USERS;
}

/** The demo accounts the store holds: refused by a portal whose upstream is not the sandbox. */
export async function demoAccounts(): Promise<string[]> {
  return (await listUsers()).filter((user) => user.demo).map((user) => user.email);
}
