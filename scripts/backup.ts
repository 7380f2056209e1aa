import path from 'node:path';
import { storeSettings } from '../lib/config';
import { backupSqlite, BackupError, restoreSqlite, type BackupSummary } from '../lib/store/backup';
import { storeTarget } from '../lib/store/settings';

/**
 * `npm run backup -- <file>`: a consistent copy of the embedded database, taken while the portal runs, then
 * checked. `npm run restore -- <file>`: checks a backup and puts it in place of the embedded database of a
 * stopped portal (the one replaced is kept beside it). For PostgreSQL both say which commands to use instead.
 */

const [command, file] = [process.argv[2], process.argv[3]];
const said = (s: BackupSummary) =>
  `${s.users} users, ${s.auditEntries} audit entries (chain intact, head ${s.auditChain.slice(0, 16)}…), ${s.deliveries} deliveries, ${s.changes} changes; ${s.migrations} migrations; ${Math.round(s.bytes / 1024)} KiB`;

try {
  if ((command !== 'backup' && command !== 'restore') || !file) {
    console.error(`usage: npm run ${command === 'restore' ? 'restore' : 'backup'} -- <file>`);
    process.exit(2);
  }
  const target = storeTarget(storeSettings());
  if (target.engine === 'postgres') {
    console.error(
      `The store is ${target.label}: back it up with pg_dump --format=custom and restore with pg_restore (docs/operations.md#backups). Keep DELIVERY_SECRET_KEY and AUTH_SECRET with it: they are not in the database.`,
    );
    process.exit(2);
  }
  if (command === 'backup') {
    const summary = await backupSqlite(target.file, path.resolve(file));
    console.log(`backed up ${target.label} to ${summary.file}: ${said(summary)}`);
  } else {
    const summary = await restoreSqlite(path.resolve(file), target.file);
    console.log(`restored ${summary.file} into ${target.label}: ${said(summary)}`);
    if (summary.keptAs) console.log(`the database it replaced is kept as ${summary.keptAs}`);
  }
} catch (error) {
  console.error(error instanceof BackupError ? `${command} refused: ${error.message}` : `${command} failed: ${(error as Error).message}`);
  process.exit(1);
}
