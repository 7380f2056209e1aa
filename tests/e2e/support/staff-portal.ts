import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeUsersFile } from '../../support/users-file';
import { STAFF, type RoleName } from '../fixtures';
import { startInstance, type Instance } from './instances';

/** A portal of a spec's own (`npm start`) with a fresh data dir and the staff accounts of `roles`, imported on first start; `output` keeps what it prints. */
export async function startStaffPortal(port: number, roles: RoleName[], env: Record<string, string>, output?: string[]): Promise<Instance> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `portal-${port}-`));
  const usersFile = path.join(dataDir, 'users.json');
  await writeUsersFile(
    usersFile,
    roles.map((role) => ({ ...STAFF[role], role })),
  );
  return startInstance(port, { PORTAL_DATA_DIR: dataDir, PORTAL_USERS_FILE: usersFile, ...env }, output);
}
