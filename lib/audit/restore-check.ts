import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Jwk } from '@/public/verify-picks-file.mjs';
import { parseSigningKey } from '../proof/keys';
import { readBackup } from '../store/backup';
import { listCheckpoints } from '../store/checkpoints';
import { checkpointsIn } from './checkpoints';
import { verifySealed } from './verify-sealed';
import { verifyTables } from './verify-tables';

/**
 * Before a restore: the backup's audit trail checked against what is kept outside any database — the public
 * keys (a JWK Set the operator keeps, and this machine's own signing key file) and the checkpoints appended to
 * AUDIT_CHECKPOINT_FILE — never against keys or checkpoints the backup itself holds, which whoever edited it
 * could have planted. Entries edited or deleted, checkpoints forged or removed, are each named; so are the rows of the
 * tables that decide who may act and where data goes that differ from what the newest checkpoint sealed.
 */

export interface RestoreCheck {
  /** False when nothing outside the backup could check it (no key given, or nothing it holds is signed). */
  checked: boolean;
  problems: string[];
  notes: string[];
}

export interface KeptOutside {
  /** A JWK Set file (npm run proof -- keys, kept apart from the database). */
  keysFile?: string;
  /** This machine's signing key file: its public half is a key the trail was sealed with. */
  signingKeyFile?: string;
  /** Checkpoints kept outside the database (AUDIT_CHECKPOINT_FILE, or a copy). */
  checkpointsFile?: string;
}

export async function checkBackupSeal(backup: string, outside: KeptOutside): Promise<RestoreCheck> {
  const keys: Jwk[] = [];
  const notes: string[] = [];
  if (outside.keysFile) keys.push(...((JSON.parse(await readFile(outside.keysFile, 'utf8')) as { keys: Jwk[] }).keys ?? []));
  if (outside.signingKeyFile && existsSync(outside.signingKeyFile)) {
    const own = (await parseSigningKey(await readFile(outside.signingKeyFile, 'utf8'))).publicJwk as Jwk;
    if (!keys.some((key) => key.kid === own.kid)) keys.push(own);
  }
  const kept =
    outside.checkpointsFile && existsSync(outside.checkpointsFile) ? checkpointsIn(await readFile(outside.checkpointsFile, 'utf8')) : [];
  return readBackup(backup, async (db) => {
    const sealed = (await listCheckpoints(db)).length;
    if (keys.length === 0) {
      if (sealed === 0 && kept.length === 0)
        return { checked: false, problems: [], notes: ['no checkpoint seals it: only its hash chain was checked'] };
      return {
        checked: false,
        problems: [
          `its audit trail is sealed by ${sealed + kept.length} signed checkpoints, and no public key was given to check them: give --keys <jwks.json> (npm run proof -- keys, kept apart from the database) or keep the signing key file in place`,
        ],
        notes,
      };
    }
    const verdict = await verifySealed(db, { keys: { keys: keys as never }, outside: kept, copy: true });
    const tables = await verifyTables(db, keys);
    if (kept.length === 0)
      notes.push(
        'no checkpoints kept outside were given (--checkpoints): the newest entries deleted with their checkpoints would not show',
      );
    return { checked: true, problems: [...verdict.problems, ...tables.problems], notes: [...notes, ...verdict.notes, ...tables.notes] };
  });
}
