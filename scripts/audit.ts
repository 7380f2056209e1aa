import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { JSONWebKeySet } from 'jose';
import { closeStore, getStore } from '../lib/store';
import { pruneAudit, verifyAudit } from '../lib/store/audit';
import { auditRetentionDays, storeSettings } from '../lib/config';
import { anchorSealer, CHECKPOINT_TYPE, checkpointFile, checkpointsIn, keepOutside, sealAudit } from '../lib/audit/checkpoints';
import { verifySealed } from '../lib/audit/verify-sealed';
import { loadSigningKey } from '../lib/proof/keys';
import { signWith } from '../lib/proof/signer';
import type { StoredCheckpoint } from '../lib/store/checkpoints';

/**
 * `npm run audit -- verify --keys <jwks.json> [--checkpoints <file>]`: the hash chain, every checkpoint's signature
 * with the keys given (never keys read from the database), that the chain passes through every checkpoint, that a
 * pruned start is sealed, and that the checkpoints kept outside (AUDIT_CHECKPOINT_FILE, or a copy) are all in the
 * database unchanged; exits 1 naming every problem, and says what stays unprovable. Without --keys only the chain
 * is checked. `npm run audit -- head`: the latest entry's hash. `npm run audit -- checkpoint`: seals what is
 * unsealed now. `npm run audit -- prune`: removes entries older than AUDIT_RETENTION_DAYS (400), sealing the new
 * start (the portal also does this hourly). The commands that sign read the portal's key (PORTAL_SIGNING_KEY_FILE).
 */

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { keys: { type: 'string' }, checkpoints: { type: 'string' } },
});
const command = positionals[0];
const exit = async (code: number) => {
  await closeStore();
  process.exit(code);
};
const env = process.env;
const settings = storeSettings();
const keptIn = checkpointFile({ ...settings, AUDIT_CHECKPOINT_FILE: env.AUDIT_CHECKPOINT_FILE });
const signer = async () => {
  const key = await loadSigningKey({ ...settings, PORTAL_SIGNING_KEY_FILE: env.PORTAL_SIGNING_KEY_FILE || undefined });
  return (payload: Uint8Array) => signWith(key, payload, CHECKPOINT_TYPE);
};
try {
  const { db, target } = await getStore({ attempts: 3, log: (line) => console.error(line) });
  if (command === 'verify' && values.keys) {
    const keys = JSON.parse(await readFile(values.keys, 'utf8')) as JSONWebKeySet;
    const outside = values.checkpoints ? checkpointsIn(await readFile(values.checkpoints, 'utf8')) : undefined;
    const verdict = await verifySealed(db, { keys, outside });
    console.log(`audit trail in ${target.label}: ${verdict.entries} entries up to ${verdict.head.seq}, ${verdict.checkpoints} checkpoints`);
    for (const problem of verdict.problems) console.log(`  FAIL ${problem}`);
    for (const note of verdict.notes) console.log(`  note ${note}`);
    console.log(verdict.ok ? `sealed and intact up to entry ${verdict.sealedUpTo}; head ${verdict.head.hash}` : 'NOT INTACT');
    await exit(verdict.ok ? 0 : 1);
  } else if (command === 'verify' || command === 'head') {
    const verdict = await verifyAudit(db);
    if (!verdict.ok) {
      console.error(`audit trail in ${target.label}: entry ${verdict.seq} does not fit: ${verdict.problem}`);
      await exit(1);
    } else if (command === 'head') console.log(verdict.head);
    else
      console.log(
        `audit trail in ${target.label}: ${verdict.entries} entries, chain intact; head ${verdict.head}\n  note checkpoints not checked: give --keys <jwks.json> (npm run proof -- keys, kept apart from the database)`,
      );
  } else if (command === 'checkpoint') {
    const made = await sealAudit(db, await signer(), { every: 1, minutes: 0, force: true });
    if (made) await keepOutside(keptIn, [made]);
    console.log(made ? `checkpoint ${made.id} seals entries up to ${made.headSeq}; appended to ${keptIn}` : 'nothing unsealed');
  } else if (command === 'prune') {
    const days = auditRetentionDays();
    const made: StoredCheckpoint[] = [];
    const removed = await pruneAudit(db, new Date(Date.now() - days * 86_400_000).toISOString(), anchorSealer(await signer(), made));
    await keepOutside(keptIn, made);
    console.log(`removed ${removed} entries older than ${days} days; the new start is sealed by a signed checkpoint`);
  } else {
    console.error('usage: npm run audit -- verify [--keys <jwks.json> [--checkpoints <file>]] | head | checkpoint | prune');
    await exit(2);
  }
  await exit(0);
} catch (error) {
  console.error((error as Error).message);
  await exit(1);
}
