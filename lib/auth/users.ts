import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { hashPassword } from './passwords';
import { ROLES, type Role } from './roles';

/** The portal's users: a JSON file at PORTAL_USERS_FILE holding emails, roles and scrypt hashes only. */

const userSchema = z.object({
  email: z.string().email(),
  role: z.enum(ROLES),
  passwordHash: z.string().startsWith('scrypt$'),
  createdAt: z.string(),
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
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ users }, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file); // atomic: a reader never sees half a file
}

export async function findUser(file: string, email: string): Promise<StoredUser | undefined> {
  const wanted = normaliseEmail(email);
  return (await readUsers(file)).find((user) => user.email === wanted);
}

export async function addUser(file: string, email: string, role: Role, password: string): Promise<StoredUser> {
  const address = normaliseEmail(email);
  if (!z.string().email().safeParse(address).success) throw new Error(`"${email}" is not an email address.`);
  if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
  const users = await readUsers(file);
  const user: StoredUser = { email: address, role, passwordHash: await hashPassword(password), createdAt: new Date().toISOString() };
  const index = users.findIndex((u) => u.email === address);
  if (index >= 0) users[index] = { ...user, createdAt: users[index]!.createdAt };
  else users.push(user);
  await writeUsers(file, users);
  return user;
}

export async function removeUser(file: string, email: string): Promise<boolean> {
  const users = await readUsers(file);
  const kept = users.filter((user) => user.email !== normaliseEmail(email));
  if (kept.length === users.length) return false;
  await writeUsers(file, kept);
  return true;
}
