import { parseArgs } from 'node:util';
import { ROLES, isRole } from '../lib/vocabulary/roles';
import { addUser, listUsers, removeUser, setPassword, updateUser } from '../lib/auth/users';
import { recordAudit, type AuditAction } from '../lib/audit/record';
import { closeStore, getStore } from '../lib/store';
import { ownerChange } from '../lib/tokens/owner';

/**
 * `npm run users -- add <email> --role <viewer|editor|manager|admin>` (password from standard input),
 * `list`, `role <email> --role <role>`, `password <email>` (from standard input), `disable|enable <email>`,
 * `remove <email>`. Works on the portal's store (DATABASE_URL, or the embedded database in PORTAL_DATA_DIR),
 * also while the portal runs: open sessions of a removed, disabled or demoted account lose that access
 * within seconds on every instance.
 */

const { positionals, values } = (() => {
  try {
    return parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: { role: { type: 'string' } } });
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
})();
const [command, email] = positionals;
const usage = `usage:
  npm run users -- add <email> --role <${ROLES.join('|')}>   (reads the password from standard input)
  npm run users -- list
  npm run users -- role <email> --role <${ROLES.join('|')}>
  npm run users -- password <email>   (reads the new password from standard input)
  npm run users -- disable <email>
  npm run users -- enable <email>
  npm run users -- remove <email>`;

async function fail(message: string): Promise<never> {
  console.error(message);
  await closeStore();
  process.exit(1);
}

/** Every change made here is in the audit trail, by `cli`. */
async function audited(action: AuditAction, target: string, change: () => Promise<boolean>, filters: Record<string, string> | null = null) {
  // Their API tokens act for them: suspended or resumed with the account, audited (lib/tokens/owner.ts).
  const done = await ownerChange({ email: 'cli', role: null }, target, change);
  const outcome = done ? 'complete' : 'failed';
  await recordAudit({
    actor: 'cli',
    action,
    target: target.trim().toLowerCase(),
    filters,
    outcome,
    errorCode: done ? null : 'NO_SUCH_USER',
  });
  if (!done) await fail(`no user ${target} in ${where}`);
}

async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password (input is shown; prefer piping it): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (process.stdin.isTTY && String(chunk).includes('\n')) break;
  }
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

function roleOption() {
  const role = values.role;
  if (!email || positionals.length !== 2 || role === undefined) return fail(usage);
  if (!isRole(role)) return fail(`--role must be one of ${ROLES.join(', ')}`);
  return role;
}

let where = 'the store';
try {
  where = (await getStore({ attempts: 3, log: (line) => console.error(line) })).target.label;
  switch (command) {
    case 'add': {
      const role = await roleOption();
      const user = await addUser(email!, role, await readPassword());
      await recordAudit({ actor: 'cli', action: 'user.add', target: user.email, outcome: 'complete', filters: { role } });
      console.log(`saved ${user.email} (${user.role}) in ${where}`);
      break;
    }
    case 'list': {
      const users = await listUsers();
      if (users.length === 0) console.log(`no users in ${where}`);
      for (const user of users)
        console.log(
          [
            user.email,
            user.role,
            user.createdAt,
            user.disabled ? 'disabled' : '',
            user.demo ? 'demo' : '',
            user.provider === 'oidc' ? 'sso' : '',
          ]
            .join('\t')
            .trimEnd(),
        );
      break;
    }
    case 'role': {
      const role = await roleOption();
      await audited('user.role', email!, () => updateUser(email!, { role }), { role });
      console.log(`${email} is now ${role}`);
      break;
    }
    case 'password': {
      if (!email || positionals.length !== 2) await fail(usage);
      const password = await readPassword();
      await audited('user.password', email!, () => setPassword(email!, password));
      console.log(`new password set for ${email}`);
      break;
    }
    case 'disable':
    case 'enable': {
      if (!email || positionals.length !== 2) await fail(usage);
      await audited(command === 'disable' ? 'user.disable' : 'user.enable', email!, () =>
        updateUser(email!, { disabled: command === 'disable' }),
      );
      console.log(`${command}d ${email}`);
      break;
    }
    case 'remove': {
      if (!email) await fail(usage);
      await audited('user.remove', email!, () => removeUser(email!));
      console.log(`removed ${email}`);
      break;
    }
    default:
      await fail(usage);
  }
  await closeStore();
} catch (error) {
  await fail((error as Error).message);
}
