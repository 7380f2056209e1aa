import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { DEMO_USERS } from '../../lib/auth/demo-users';
import { writeUsersFile } from './users-file';
import { STAFF } from './fixtures';

/**
 * Before each e2e portal's `npm start` (tests/support/start-servers.ts): empties its data dir, and for the
 * portals on a "real" upstream writes a users file as older portals kept it (ordinary accounts, one per role,
 * and demo accounts carried over from a sandbox setup, which these portals must refuse). The store imports it
 * on first start. Makes the folder of the portals' log files too. The file is written once (scrypt is slow on
 * purpose) and copied to each portal that takes one.
 */
export async function preparePortals(portals: { dataDir: string; users: 'staff' | 'none' }[]): Promise<void> {
  await mkdir('.data/e2e-logs', { recursive: true }); // the portals' output (E2E.logFile)
  await Promise.all(portals.map(({ dataDir }) => rm(dataDir, { recursive: true, force: true })));
  const staff = portals.filter((portal) => portal.users === 'staff');
  if (staff.length === 0) return;
  const first = path.join(staff[0]!.dataDir, 'users.json');
  await writeUsersFile(first, [
    ...Object.entries(STAFF).map(([role, user]) => ({ email: user.email, role, password: user.password })),
    ...DEMO_USERS.map((user) => ({ ...user, demo: true })),
  ]);
  for (const { dataDir } of staff.slice(1)) {
    await mkdir(dataDir, { recursive: true });
    await copyFile(first, path.join(dataDir, 'users.json'));
  }
}
