import path from 'node:path';
import { parseArgs } from 'node:util';
import { recordAudit } from '../lib/audit/record';
import { checkBackupSeal } from '../lib/audit/restore-check';
import { checkpointFile } from '../lib/audit/checkpoints';
import { storeSettings } from '../lib/config';
import { keyFileOf } from '../lib/proof/keys';
import { EMBEDDED_SECRET_KEY_FILE } from '../lib/config/secret-key';
import { existsSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { CHECKPOINT_TYPE, keepOutside, sealAudit } from '../lib/audit/checkpoints';
import { verifyTables } from '../lib/audit/verify-tables';
import { parseSigningKey } from '../lib/proof/keys';
import { signWith } from '../lib/proof/signer';
import { closeStore, getStore } from '../lib/store';
import { backupSqlite, BackupError, checkBackup, readBackup, restoreSqlite, type BackupSummary } from '../lib/store/backup';
import { storeTarget } from '../lib/config/store';

/**
 * `npm run backup -- <file>`: a consistent copy of the embedded database, taken while the portal runs, then
 * checked, owner-only, its audit trail sealed just before (with the tables of who may act and where data goes) when
 * this machine holds the signing key. `npm run restore -- <file> [--keys <jwks.json>] [--checkpoints <file>] [--accept-unverified]`:
 * checks a backup (its audit trail against the keys and checkpoints kept outside any database) and puts it in
 * place of the embedded database of a stopped portal (the one replaced is kept beside it); a backup that does
 * not verify is refused unless --accept-unverified, which is recorded in the restored audit trail. For
 * PostgreSQL both say which commands to use instead.
 */

const { positionals, values } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { keys: { type: 'string' }, checkpoints: { type: 'string' }, 'accept-unverified': { type: 'boolean' } },
});
const [command, file] = positionals;
const said = (s: BackupSummary) =>
  `${s.users} users, ${s.auditEntries} audit entries (chain intact, head ${s.auditChain.slice(0, 16)}…), ${s.deliveries} deliveries, ${s.changes} changes; ${s.migrations} migrations; ${Math.round(s.bytes / 1024)} KiB`;

try {
  if ((command !== 'backup' && command !== 'restore') || !file || positionals.length !== 2) {
    console.error(
      command === 'restore'
        ? 'usage: npm run restore -- <file> [--keys <jwks.json>] [--checkpoints <file>] [--accept-unverified]'
        : 'usage: npm run backup -- <file>',
    );
    process.exit(2);
  }
  const settings = storeSettings();
  const target = storeTarget(settings);
  if (target.engine === 'postgres') {
    console.error(
      `The store is ${target.label}: back it up with pg_dump --format=custom and restore with pg_restore (docs/operations.md#backups). Keep DELIVERY_SECRET_KEY and AUTH_SECRET with it: they are not in the database.`,
    );
    process.exit(2);
  }
  if (command === 'backup') {
    const keyFile = keyFileOf({ ...settings, PORTAL_SIGNING_KEY_FILE: process.env.PORTAL_SIGNING_KEY_FILE || undefined });
    const key = existsSync(keyFile) ? await parseSigningKey(await readFile(keyFile, 'utf8')) : null;
    const keptIn = checkpointFile({ ...settings, AUDIT_CHECKPOINT_FILE: process.env.AUDIT_CHECKPOINT_FILE });
    // Sealed just before the copy, so the copy's newest checkpoint vouches for its users, tokens, deliveries and
    // webhooks as they are in it; taken again (up to three times) if one changed between the seal and the copy.
    for (let attempt = 1; ; attempt += 1) {
      if (key) {
        const { db } = await getStore({ attempts: 3, log: (line) => console.error(line) });
        const made = await sealAudit(db, (payload) => signWith(key, payload, CHECKPOINT_TYPE), { every: 1, minutes: 0, force: true });
        if (made) await keepOutside(keptIn, [made]);
      }
      const summary = await backupSqlite(target.file, path.resolve(file));
      const tables = key ? await readBackup(summary.file, (db) => verifyTables(db, [key.publicJwk as never])) : null;
      if (tables && tables.problems.length > 0 && attempt < 3) {
        rmSync(summary.file);
        continue;
      }
      console.log(`backed up ${target.label} to ${summary.file}: ${said(summary)}`);
      // What the database does not hold and a restore needs (docs/operations.md, "Keep with every backup").
      const own = path.join(path.dirname(target.file), EMBEDDED_SECRET_KEY_FILE);
      if (!process.env.DELIVERY_SECRET_KEY && existsSync(own))
        console.log(`  keep with every backup: ${own} (the key delivery and webhook secrets are sealed with)`);
      for (const line of tables
        ? [...tables.problems, ...tables.notes]
        : ['not sealed: no signing key on this machine, so a restore cannot vouch for its tables'])
        console.log(`  note ${line}`);
      break;
    }
  } else {
    const env = process.env;
    await checkBackup(path.resolve(file)); // a sound database of a schema this portal knows, before its trail is read
    const sealed = await checkBackupSeal(path.resolve(file), {
      keysFile: values.keys,
      signingKeyFile: keyFileOf({ ...settings, PORTAL_SIGNING_KEY_FILE: env.PORTAL_SIGNING_KEY_FILE || undefined }),
      checkpointsFile: values.checkpoints ?? checkpointFile({ ...settings, AUDIT_CHECKPOINT_FILE: env.AUDIT_CHECKPOINT_FILE }),
    }).catch((error: Error) => ({ checked: false, problems: [`its audit trail could not be checked: ${error.message}`], notes: [] }));
    for (const problem of sealed.problems) console.error(`  FAIL ${problem}`);
    for (const note of sealed.notes) console.log(`  note ${note}`);
    const accepted = sealed.problems.length > 0 && values['accept-unverified'] === true;
    if (sealed.problems.length > 0 && !accepted)
      throw new BackupError(
        `${file}: its audit trail does not agree with the keys and checkpoints kept outside the database. Nothing was changed. If you must restore it all the same, run again with --accept-unverified (it is recorded).`,
      );
    const summary = await restoreSqlite(path.resolve(file), target.file);
    console.log(`restored ${summary.file} into ${target.label}: ${said(summary)}`);
    if (summary.keptAs) console.log(`the database it replaced is kept as ${summary.keptAs}`);
    // The restore is the restored trail's newest entry; one accepted unverified says what did not hold.
    await recordAudit({
      actor: 'cli',
      action: 'backup.restore',
      target: path.basename(file),
      outcome: 'complete',
      errorCode: accepted ? 'UNVERIFIED' : null,
      filters: accepted ? { problems: sealed.problems.join(' | ').slice(0, 2000) } : { sealed: sealed.checked ? 'verified' : 'not sealed' },
    });
    if (accepted)
      console.log('restored although its audit trail does not verify: recorded in the audit trail (backup.restore, UNVERIFIED)');
  }
} catch (error) {
  console.error(error instanceof BackupError ? `${command} refused: ${error.message}` : `${command} failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await closeStore();
}
