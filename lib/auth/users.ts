import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { z } from 'zod';
import { hashPassword } from './passwords';
import { ROLES, type Role } from './roles';

/**
 * The portal's users: a JSON file at PORTAL_USERS_FILE holding emails, roles and scrypt hashes only.
 * Every change is a locked read-modify-write (proper-lockfile), so `npm run users` and the portal never
 * lose each other's writes, and the file is replaced atomically through a private, unpredictable temp file.
 */

const userSchema = z.object({
  email: z.string().email(),
  role: z.enum(ROLES),
  passwordHash: z.string().startsWith('scrypt$'),
  createdAt: z.string(),
  /** Sandbox demo accounts: refused whenever the upstream is not the sandbox. */
  demo: z.boolean().optional(),
  disabled: z.boolean().optional(),
});
const fileSchema = z.object({ users: z.array(userSchema) });

export type StoredUser = z.infer<typeof userSchema>;

export const normaliseEmail = (email: string) => email.trim().toLowerCase();
export const MIN_PASSWORD_LENGTH = 10;

export async function readUsers(file: string): Promise<StoredUser[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parsed = fileSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${file} is not a valid users file: ${parsed.error.issues[0]?.message}`);
  return parsed.data.users;
}

async function writeUsers(file: string, users: StoredUser[]): Promise<void> {
  const temporary = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  // wx: O_CREAT|O_EXCL, never through a file (or link) someone placed there; 0600: hashes are private.
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify({ users }, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, file); // atomic: a reader never sees half a file
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Runs one read-modify-write of the users file under an exclusive lock shared by every process. */
async function changeUsers<T>(
  file: string,
  change: (users: StoredUser[]) => Promise<{ users: StoredUser[] | null; result: T }>,
): Promise<T> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
  const release = await lockfile.lock(file, { realpath: false, retries: { retries: 50, minTimeout: 20, maxTimeout: 200 }, stale: 10_000 });
  try {
    const { users, result } = await change(await readUsers(file));
    if (users) await writeUsers(file, users);
    return result;
  } finally {
    await release();
  }
}

export async function findUser(file: string, email: string): Promise<StoredUser | undefined> {
  const wanted = normaliseEmail(email);
  return (await readUsers(file)).find((user) => user.email === wanted);
}

export async function addUser(
  file: string,
  email: string,
  role: Role,
  password: string,
  options: { demo?: boolean } = {},
): Promise<StoredUser> {
  const address = normaliseEmail(email);
  if (!z.string().email().safeParse(address).success) throw new Error(`"${email}" is not an email address.`);
  if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
  const passwordHash = await hashPassword(password); // outside the lock: it takes tens of milliseconds
  return changeUsers(file, async (users) => {
    const user: StoredUser = {
      email: address,
      role,
      passwordHash,
      createdAt: new Date().toISOString(),
      ...(options.demo ? { demo: true } : {}),
    };
    const index = users.findIndex((u) => u.email === address);
    if (index >= 0) users[index] = { ...user, createdAt: users[index]!.createdAt };
    else users.push(user);
    return { users, result: user };
  });
}

/** Changes one user's fields; false when there is no such user. */
export async function updateUser(file: string, email: string, change: Partial<Pick<StoredUser, 'role' | 'disabled'>>): Promise<boolean> {
  const address = normaliseEmail(email);
  return changeUsers(file, async (users) => {
    const user = users.find((u) => u.email === address);
    if (!user) return { users: null, result: false };
    Object.assign(user, change);
    if (user.disabled === false) delete user.disabled;
    return { users, result: true };
  });
}

export async function removeUser(file: string, email: string): Promise<boolean> {
  return changeUsers(file, async (users) => {
    const kept = users.filter((user) => user.email !== normaliseEmail(email));
    return { users: kept.length === users.length ? null : kept, result: kept.length !== users.length };
  });
}
