import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { hashPassword } from '../../lib/auth/passwords';

/** Writes a users file as portals before the store kept it: what the store imports once on first start. */
export async function writeUsersFile(
  file: string,
  users: { email: string; role: string; password: string; demo?: boolean; disabled?: boolean }[],
): Promise<void> {
  const rows = await Promise.all(
    users.map(async ({ password, ...user }) => ({
      ...user,
      passwordHash: await hashPassword(password),
      createdAt: new Date().toISOString(),
    })),
  );
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify({ users: rows }, null, 2)}\n`, { mode: 0o600 });
}
