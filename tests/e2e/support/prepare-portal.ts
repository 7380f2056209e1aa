import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { DEMO_USERS } from '../../../lib/auth/demo-users';
import { writeUsersFile } from '../../support/users-file';
import { STAFF } from '../fixtures';

/**
 * Run before each e2e portal's `npm start`: empties its data dir, and for the portals on a "real" upstream
 * writes a users file as older portals kept it (ordinary accounts, one per role, and demo accounts carried
 * over from a sandbox setup, which these portals must refuse). The store imports it on first start.
 * Makes the folder of the portals' log files too.
 */

const [dataDir, users] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: prepare-portal.ts <data dir> <staff|none>');
await rm(dataDir, { recursive: true, force: true });
await mkdir('.data/e2e-logs', { recursive: true }); // the portals' output (E2E.logFile)
if (users === 'staff') {
  await writeUsersFile(path.join(dataDir, 'users.json'), [
    ...Object.entries(STAFF).map(([role, user]) => ({ email: user.email, role, password: user.password })),
    ...DEMO_USERS.map((user) => ({ ...user, demo: true })),
  ]);
}
