import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { readMeta, writeMeta } from './meta';
import type { Database } from './schema';
import { insertUserIfAbsent } from './users';

/**
 * The users file of portals before the store (PORTAL_USERS_FILE) is imported once per machine and path:
 * accounts the store lacks are added, none is overwritten, and the file is never written or read again.
 * A file changed after its import is reported, not re-read: the store is where users live now.
 */

const fileSchema = z.object({
  users: z.array(
    z.object({
      email: z.string(),
      role: z.string(),
      passwordHash: z.string().startsWith('scrypt$'),
      createdAt: z.string(),
      demo: z.boolean().optional(),
      disabled: z.boolean().optional(),
    }),
  ),
});

export type ImportOutcome =
  { kind: 'none' } | { kind: 'imported'; added: number; skipped: number } | { kind: 'already'; at: string; changed: boolean };

export async function importUsersFile(db: Kysely<Database>, file: string, isRole: (role: string) => boolean): Promise<ImportOutcome> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    throw error;
  }
  const key = `users-file:${hostname()}:${path.resolve(file)}`;
  const digest = createHash('sha256').update(text).digest('hex');
  const done = await readMeta(db, key);
  if (done) {
    const marker = JSON.parse(done) as { at: string; sha256: string };
    return { kind: 'already', at: marker.at, changed: marker.sha256 !== digest };
  }
  let parsed;
  try {
    parsed = fileSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new Error(`${file} is not a valid users file, so it was not imported: ${(error as Error).message.slice(0, 200)}`);
  }
  let added = 0;
  for (const user of parsed.users) {
    const email = user.email.trim().toLowerCase();
    if (!isRole(user.role)) throw new Error(`${file}: ${email} has an unknown role "${user.role}"; nothing more was imported.`);
    if (await insertUserIfAbsent(db, { ...user, email, demo: user.demo ?? false, disabled: user.disabled ?? false })) added += 1;
  }
  await writeMeta(db, key, JSON.stringify({ at: new Date().toISOString(), sha256: digest, added }));
  return { kind: 'imported', added, skipped: parsed.users.length - added };
}
