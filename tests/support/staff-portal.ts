import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeUsersFile } from './users-file';
import { STAFF, type RoleName } from './fixtures';
import { startInstance, type Instance } from './instances';

export interface StaffPortalOptions {
  /** The staff accounts to import on first start (tests/support/fixtures.ts STAFF). */
  roles: readonly RoleName[];
  /** Other accounts to import beside them. */
  others?: { email: string; password: string; role: RoleName }[];
  env?: Record<string, string>;
  /** Keeps what the portal prints, for tests that read its logs. */
  output?: string[];
  /** Names the data directory (a temporary one by default). */
  label?: string;
}

export type StaffPortal = Instance & { dataDir: string; usersFile: string };

/**
 * The one way a spec starts a portal of its own (`npm start`): a fresh data dir, the staff accounts of `roles`
 * (and `others`) in a users file imported on first start, the embedded store unless `env` names a database.
 */
export async function startStaffPortal(port: number, options: StaffPortalOptions): Promise<StaffPortal> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `${options.label ?? 'portal'}-${port}-`));
  const usersFile = path.join(dataDir, 'users.json');
  await writeUsersFile(usersFile, [...options.roles.map((role) => ({ ...STAFF[role], role })), ...(options.others ?? [])]);
  const instance = await startInstance(
    port,
    { DATABASE_URL: '', PORTAL_DATA_DIR: dataDir, PORTAL_USERS_FILE: usersFile, ...options.env },
    options.output,
  );
  return { ...instance, dataDir, usersFile };
}
