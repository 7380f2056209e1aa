import 'server-only';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { recordAudit, type AuditAction } from '../audit/record';
import { getStore } from '../store';
import { changeUserGuarded } from '../store/users';
import { ROLES, type Role } from '../vocabulary/roles';
import { addUser, findUser, MIN_PASSWORD_LENGTH, normaliseEmail, setPassword } from './users';

/**
 * Users managed in the portal by admins (/admin/users): the same rules as `npm run users`, plus the guard
 * that the last enabled admin can be neither removed, disabled nor demoted. Every change, refused or not,
 * is in the audit trail with the admin as actor. Generated passwords are shown once and never stored.
 */

export type AdminResult = {
  ok: boolean;
  message: string;
  oneTimePassword?: string;
  /** Each wrong field of the form and why (all at once), and what was typed (never a password), kept for the form. */
  details?: Record<string, string>;
  values?: { email: string; role: string };
};

/** A new account's fields, each checked: every wrong one named in the same answer. */
function addProblems(form: Record<string, unknown>): Record<string, string> {
  const problems: Record<string, string> = {};
  const email = String(form.email ?? '').trim();
  if (!email) problems.email = 'is required';
  else if (!z.email().safeParse(normaliseEmail(email)).success) problems.email = `"${email.slice(0, 80)}" is not an email address`;
  if (!ROLES.includes(String(form.role ?? '') as Role)) problems.role = `must be one of ${ROLES.join(', ')}`;
  const password = String(form.password ?? '');
  if (password !== '' && password.length < MIN_PASSWORD_LENGTH)
    problems.password = `must have at least ${MIN_PASSWORD_LENGTH} characters (or leave it empty for one made for you)`;
  return problems;
}
export interface Actor {
  email: string;
  role: Role;
}

const operation = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), email: z.string().trim().min(3).max(320), role: z.enum(ROLES), password: z.string().max(1024) }),
  z.object({ op: z.literal('role'), email: z.string().trim().min(3).max(320), role: z.enum(ROLES) }),
  z.object({ op: z.enum(['disable', 'enable', 'remove', 'reset']), email: z.string().trim().min(3).max(320) }),
]);

const ACTIONS: Record<string, AuditAction> = {
  add: 'user.add',
  role: 'user.role',
  disable: 'user.disable',
  enable: 'user.enable',
  remove: 'user.remove',
  reset: 'user.password',
};

const oneTimePassword = () => randomBytes(12).toString('base64url');

export async function manageUser(actor: Actor, form: Record<string, unknown>): Promise<AdminResult> {
  if (form.op === 'add') {
    const details = addProblems(form);
    const count = Object.keys(details).length;
    if (count > 0)
      return {
        ok: false,
        message: count === 1 ? 'One field needs a change.' : `${count} fields need a change.`,
        details,
        values: { email: String(form.email ?? ''), role: String(form.role ?? '') },
      };
  }
  const parsed = operation.safeParse(form);
  if (!parsed.success) return { ok: false, message: 'That request was not complete: choose a user, an action and, where asked, a role.' };
  const input = parsed.data;
  const email = normaliseEmail(input.email);
  const audit = (ok: boolean, errorCode: string | null, filters: Record<string, string> | null = null) =>
    recordAudit({
      actor: actor.email,
      role: actor.role,
      action: ACTIONS[input.op]!,
      target: email,
      outcome: ok ? 'complete' : 'failed',
      errorCode,
      filters,
    });
  try {
    switch (input.op) {
      case 'add': {
        if (await findUser(email)) {
          await audit(false, 'ALREADY_EXISTS');
          return { ok: false, message: `${email} already has an account. Change its role or reset its password instead.` };
        }
        const generated = input.password === '' ? oneTimePassword() : undefined;
        const user = await addUser(email, input.role, generated ?? input.password);
        await audit(true, null, { role: input.role });
        return generated
          ? {
              ok: true,
              message: `Added ${user.email} as ${user.role}. Give them this password; it is shown only now.`,
              oneTimePassword: generated,
            }
          : { ok: true, message: `Added ${user.email} as ${user.role}, with the password you set.` };
      }
      case 'reset': {
        if ((await findUser(email))?.provider === 'oidc') {
          await audit(false, 'SINGLE_SIGN_ON');
          return {
            ok: false,
            message: `${email} signs in with single sign-on and has no password. Disable the account to end their sessions.`,
          };
        }
        const generated = oneTimePassword();
        const done = await setPassword(email, generated);
        await audit(done, done ? null : 'NO_SUCH_USER');
        return done
          ? {
              ok: true,
              message: `New password for ${email}; their open sessions end within seconds. Give it to them; it is shown only now.`,
              oneTimePassword: generated,
            }
          : { ok: false, message: `There is no user ${email}.` };
      }
      default: {
        const change =
          input.op === 'role'
            ? { role: input.role }
            : input.op === 'remove'
              ? { remove: true as const }
              : { disabled: input.op === 'disable' };
        const outcome = await changeUserGuarded((await getStore()).db, email, change);
        await audit(
          outcome === 'done',
          outcome === 'done' ? null : outcome === 'missing' ? 'NO_SUCH_USER' : 'LAST_ADMIN',
          input.op === 'role' ? { role: input.role } : null,
        );
        if (outcome === 'missing') return { ok: false, message: `There is no user ${email}.` };
        if (outcome === 'last-admin')
          return { ok: false, message: `${email} is the last enabled admin: make someone else an admin first.` };
        const done = {
          role: `${email} is now ${input.op === 'role' ? input.role : ''}: their open sessions end within seconds.`,
          remove: `Removed ${email}.`,
          disable: `Disabled ${email}: their sessions end within seconds.`,
          enable: `Enabled ${email}.`,
        };
        return { ok: true, message: done[input.op] };
      }
    }
  } catch (error) {
    const message = (error as Error).message;
    // The rules' own refusals (short password, not an address) are for the admin; anything else means the store is away.
    if (/at least \d+ characters|not an email address/.test(message)) {
      await audit(false, 'INVALID_INPUT');
      return { ok: false, message };
    }
    console.error(`[auth] user change failed: ${message}`);
    return { ok: false, message: "The change was not made: the portal's database cannot be reached. Try again in a minute." };
  }
}
