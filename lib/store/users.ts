import { randomInt } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { takeLock } from './locks';
import type { Database, UsersTable } from './schema';

/** The users table. Emails arrive normalised and passwords hashed (lib/auth/users.ts owns both). */

export interface StoredUser {
  email: string;
  role: string;
  passwordHash: string;
  createdAt: string;
  demo: boolean;
  disabled: boolean;
  lastSignInAt: string | null;
  /** Sessions carry the epoch they were signed in under; any other epoch ends them (lib/auth/session-token.ts). */
  sessionEpoch: number;
  /** 'credentials' (a password) or 'oidc' (made at single sign-on; no password). */
  provider: 'credentials' | 'oidc';
}

/** A new epoch: password reset, disable, enable, role change and re-adding each end the sessions of the one before. */
export const newEpoch = () => randomInt(1, 2 ** 47);

type Db = Kysely<Database>;

const toUser = (row: Selectable<UsersTable>): StoredUser => ({
  email: row.email,
  role: row.role,
  passwordHash: row.password_hash,
  createdAt: row.created_at,
  demo: Boolean(row.demo),
  disabled: Boolean(row.disabled),
  lastSignInAt: row.last_sign_in_at,
  sessionEpoch: Number(row.session_epoch),
  provider: row.provider === 'oidc' ? 'oidc' : 'credentials',
});

export async function listUsers(db: Db): Promise<StoredUser[]> {
  return (await db.selectFrom('users').selectAll().orderBy('email').execute()).map(toUser);
}

export async function findUser(db: Db, email: string): Promise<StoredUser | undefined> {
  const row = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  return row && toUser(row);
}

/** Adds the account, or replaces its role, hash and flags (keeping when it was created). */
export async function putUser(db: Db, user: Pick<StoredUser, 'email' | 'role' | 'passwordHash'> & { demo?: boolean }): Promise<StoredUser> {
  const row = {
    email: user.email,
    role: user.role,
    password_hash: user.passwordHash,
    created_at: new Date().toISOString(),
    demo: user.demo ? 1 : 0,
    disabled: 0,
    last_sign_in_at: null,
    session_epoch: newEpoch(),
    provider: 'credentials',
  };
  await db
    .insertInto('users')
    .values(row)
    .onConflict((oc) =>
      oc.column('email').doUpdateSet({
        role: row.role,
        password_hash: row.password_hash,
        demo: row.demo,
        disabled: 0,
        session_epoch: row.session_epoch,
        provider: 'credentials',
      }),
    )
    .execute();
  return (await findUser(db, user.email))!;
}

/** Adds the account only if it does not exist; true when it was added. */
export async function insertUserIfAbsent(db: Db, user: Omit<StoredUser, 'lastSignInAt' | 'sessionEpoch' | 'provider'>): Promise<boolean> {
  const result = await db
    .insertInto('users')
    .values({
      email: user.email,
      role: user.role,
      password_hash: user.passwordHash,
      created_at: user.createdAt,
      demo: user.demo ? 1 : 0,
      disabled: user.disabled ? 1 : 0,
      last_sign_in_at: null,
      // Epoch 0, as every account had before epochs: imported accounts keep the sessions they had.
    })
    .onConflict((oc) => oc.column('email').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Changes one account's role or disabled flag (ending its sessions); false when there is no such account. */
export async function updateUser(db: Db, email: string, change: { role?: string; disabled?: boolean }): Promise<boolean> {
  const set = {
    ...(change.role !== undefined ? { role: change.role } : {}),
    ...(change.disabled !== undefined ? { disabled: change.disabled ? 1 : 0 } : {}),
  };
  if (Object.keys(set).length === 0) return Boolean(await findUser(db, email));
  const result = await db
    .updateTable('users')
    .set({ ...set, session_epoch: newEpoch() })
    .where('email', '=', email)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A new password (ending the account's sessions); false when there is no such password account. */
export async function setPasswordHash(db: Db, email: string, passwordHash: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ password_hash: passwordHash, session_epoch: newEpoch() })
    .where('email', '=', email)
    .where('provider', '=', 'credentials')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The account of someone who signed in with single sign-on: made on first sign-in (no password, so it can
 * never sign in with one), its role refreshed from the identity provider each time. An admin can disable or
 * remove it like any other; a disabled one is refused at sign-in. Null when the address belongs to a password account.
 */
/**
 * The account of a single sign-on person, made at their first sign-on or refreshed (the role the provider gives
 * now), bound to the provider's subject: 'password' when the address has a portal password, 'other-subject' when
 * the account is bound to another identity of the provider (an account from before the binding is bound now).
 */
export async function upsertOidcUser(db: Db, email: string, role: string, sub: string): Promise<StoredUser | 'password' | 'other-subject'> {
  await db
    .insertInto('users')
    .values({
      email,
      role,
      password_hash: '',
      created_at: new Date().toISOString(),
      demo: 0,
      disabled: 0,
      last_sign_in_at: null,
      session_epoch: newEpoch(),
      provider: 'oidc',
      oidc_sub: sub,
    })
    .onConflict((oc) => oc.column('email').doNothing())
    .execute();
  const row = await db.selectFrom('users').select(['oidc_sub', 'provider']).where('email', '=', email).executeTakeFirst();
  if (!row || row.provider !== 'oidc') return 'password';
  if (row.oidc_sub !== null && row.oidc_sub !== sub) return 'other-subject';
  await db.updateTable('users').set({ role, oidc_sub: sub }).where('email', '=', email).execute();
  return { ...(await findUser(db, email))!, role };
}

export async function removeUser(db: Db, email: string): Promise<boolean> {
  const result = await db.deleteFrom('users').where('email', '=', email).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function recordSignIn(db: Db, email: string, at = new Date()): Promise<void> {
  await db.updateTable('users').set({ last_sign_in_at: at.toISOString() }).where('email', '=', email).execute();
}

export type GuardedOutcome = 'done' | 'missing' | 'last-admin';

/**
 * A role change, disabling or removal that never leaves the store without an enabled admin: checked and
 * applied in one transaction behind the `users` lock row, so two admins demoting each other at once on
 * two instances cannot both succeed.
 */
export async function changeUserGuarded(
  db: Db,
  email: string,
  change: { role?: string; disabled?: boolean; remove?: true },
): Promise<GuardedOutcome> {
  return db.transaction().execute(async (trx) => {
    await takeLock(trx, 'users');
    const user = await findUser(trx, email);
    if (!user) return 'missing';
    const staysAdmin = !change.remove && (change.role ?? user.role) === 'admin' && !(change.disabled ?? user.disabled);
    if (user.role === 'admin' && !user.disabled && !staysAdmin) {
      const others = await trx
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('role', '=', 'admin')
        .where('disabled', '=', 0)
        .where('email', '!=', email)
        .executeTakeFirstOrThrow();
      if (Number(others.n) === 0) return 'last-admin';
    }
    if (change.remove) await removeUser(trx, email);
    else await updateUser(trx, email, change);
    return 'done';
  });
}
