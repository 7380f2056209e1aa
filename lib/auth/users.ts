import { z } from 'zod';
import { getStore } from '../store';
import * as users from '../store/users';
import { hashPassword } from './passwords';
import { isRole, type Role } from '../vocabulary/roles';

/**
 * The portal's accounts: emails, roles and scrypt hashes, kept in the store (lib/store), so that every
 * instance and `npm run users` see the same accounts at once. Rules live here; persistence in the store.
 */

export type StoredUser = Omit<users.StoredUser, 'role'> & { role: Role };

export const normaliseEmail = (email: string) => email.trim().toLowerCase();
export const MIN_PASSWORD_LENGTH = 10;

const withRole = (user: users.StoredUser | undefined): StoredUser | undefined =>
  user && isRole(user.role) ? { ...user, role: user.role } : undefined;

export async function listUsers(): Promise<StoredUser[]> {
  return (await users.listUsers((await getStore()).db)).flatMap((user) => withRole(user) ?? []);
}

export async function findUser(email: string): Promise<StoredUser | undefined> {
  return withRole(await users.findUser((await getStore()).db, normaliseEmail(email)));
}

function checkPassword(password: string) {
  if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
}

/** Adds an account, or replaces the role and password of an existing one (and enables it). */
export async function addUser(email: string, role: Role, password: string, options: { demo?: boolean } = {}): Promise<StoredUser> {
  const address = normaliseEmail(email);
  if (!z.string().email().safeParse(address).success) throw new Error(`"${email}" is not an email address.`);
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  return withRole(await users.putUser((await getStore()).db, { email: address, role, passwordHash, demo: options.demo }))!;
}

/** Changes one account's role or disabled flag; false when there is no such account. */
export async function updateUser(email: string, change: { role?: Role; disabled?: boolean }): Promise<boolean> {
  return users.updateUser((await getStore()).db, normaliseEmail(email), change);
}

export async function setPassword(email: string, password: string): Promise<boolean> {
  checkPassword(password);
  return users.setPasswordHash((await getStore()).db, normaliseEmail(email), await hashPassword(password));
}

export async function removeUser(email: string): Promise<boolean> {
  return users.removeUser((await getStore()).db, normaliseEmail(email));
}

/** The store's account for a single sign-on person (made on first sign-in); null when the address has a password account. */
/** The single sign-on person's account, or why they may not have one ('password', 'other-subject'). */
export async function signInOidcAccount(email: string, role: Role, sub: string): Promise<StoredUser | 'password' | 'other-subject'> {
  const found = await users.upsertOidcUser((await getStore()).db, normaliseEmail(email), role, sub);
  if (typeof found === 'string') return found;
  const user = withRole(found);
  if (!user) return 'password';
  if (!user.disabled) await recordSignIn(user.email);
  return user;
}

export async function recordSignIn(email: string): Promise<void> {
  await users.recordSignIn((await getStore()).db, normaliseEmail(email));
}
