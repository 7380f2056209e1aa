import { parseArgs } from 'node:util';
import { ROLES, isRole } from '../lib/auth/roles';
import { addUser, readUsers, removeUser, updateUser } from '../lib/auth/users';

/**
 * `npm run users -- add <email> --role <viewer|editor|manager|admin>` (password from standard input),
 * `npm run users -- list`, `npm run users -- role <email> --role <role>`, `npm run users -- disable|enable <email>`,
 * `npm run users -- remove <email>`. Works on PORTAL_USERS_FILE (default .data/users.json), also while the
 * portal runs: open sessions of a removed, disabled or demoted account lose that access within seconds.
 */

const file = process.env.PORTAL_USERS_FILE?.trim() || '.data/users.json';
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
  npm run users -- disable <email>
  npm run users -- enable <email>
  npm run users -- remove <email>`;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
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

try {
  switch (command) {
    case 'add': {
      const role = values.role;
      if (!email || positionals.length !== 2 || role === undefined) fail(usage);
      if (!isRole(role)) fail(`--role must be one of ${ROLES.join(', ')}`);
      const user = await addUser(file, email, role, await readPassword());
      console.log(`saved ${user.email} (${user.role}) in ${file}`);
      break;
    }
    case 'list': {
      const users = await readUsers(file);
      if (users.length === 0) console.log(`no users in ${file}`);
      for (const user of users)
        console.log([user.email, user.role, user.createdAt, user.disabled ? 'disabled' : '', user.demo ? 'demo' : ''].join('\t').trimEnd());
      break;
    }
    case 'role': {
      const role = values.role;
      if (!email || positionals.length !== 2 || role === undefined) fail(usage);
      if (!isRole(role)) fail(`--role must be one of ${ROLES.join(', ')}`);
      if (!(await updateUser(file, email, { role }))) fail(`no user ${email} in ${file}`);
      console.log(`${email} is now ${role}`);
      break;
    }
    case 'disable':
    case 'enable': {
      if (!email || positionals.length !== 2) fail(usage);
      if (!(await updateUser(file, email, { disabled: command === 'disable' }))) fail(`no user ${email} in ${file}`);
      console.log(`${command}d ${email}`);
      break;
    }
    case 'remove': {
      if (!email) fail(usage);
      if (!(await removeUser(file, email))) fail(`no user ${email} in ${file}`);
      console.log(`removed ${email}`);
      break;
    }
    default:
      fail(usage);
  }
} catch (error) {
  fail((error as Error).message);
}
