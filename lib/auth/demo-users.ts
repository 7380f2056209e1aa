import { addUser, findUser } from './users';
import { ROLES, type Role } from './roles';

/** Sandbox-only demo accounts, one per role; never created when a real upstream is configured. */
export const DEMO_USERS: { email: string; role: Role; password: string }[] = ROLES.map((role) => ({
  email: `${role}@demo.picks.test`,
  role,
  password: `demo-${role}-pass`,
}));

export async function ensureDemoUsers(file: string) {
  for (const user of DEMO_USERS) {
    if (!(await findUser(file, user.email))) await addUser(file, user.email, user.role, user.password);
  }
  return DEMO_USERS;
}
