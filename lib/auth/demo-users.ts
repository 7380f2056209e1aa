import { addUser, findUser, readUsers } from './users';
import { ROLES, type Role } from './roles';

/** Sandbox-only demo accounts, one per role, marked as such in the users file. */
export const DEMO_USERS: { email: string; role: Role; password: string }[] = ROLES.map((role) => ({
  email: `${role}@demo.picks.test`,
  role,
  password: `demo-${role}-pass`,
}));

export async function ensureDemoUsers(file: string) {
  for (const user of DEMO_USERS) {
    if (!(await findUser(file, user.email))) await addUser(file, user.email, user.role, user.password, { demo: true });
  }
  return DEMO_USERS;
}

/** The demo accounts a users file holds: refused by a portal whose upstream is not the sandbox. */
export async function demoAccountsIn(file: string): Promise<string[]> {
  return (await readUsers(file)).filter((user) => user.demo).map((user) => user.email);
}
