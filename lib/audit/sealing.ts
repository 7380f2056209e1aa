import 'server-only';
import { readFile } from 'node:fs/promises';
import type { JSONWebKeySet } from 'jose';
import type { Kysely } from 'kysely';
import type { PortalConfig } from '../config';
import { log } from '../log';
import { registerJob } from '../jobs/registry';
import { whenAuditAppended } from './record';
import { publishedKeys, signBytes } from '../proof/signer';
import type { Database } from '../store/schema';
import type { StoredCheckpoint } from '../store/checkpoints';
import { anchorSealer, CHECKPOINT_TYPE, checkpointFile, checkpointsIn, keepOutside, sealAudit, type Signer } from './checkpoints';
import { verifySealed } from './verify-sealed';

/**
 * The portal's side of the sealed trail (lib/audit/checkpoints.ts): a checkpoint as soon as an entry's seq is a
 * multiple of AUDIT_CHECKPOINT_EVERY (one instance appends each seq, so one seals it), a look every minute for
 * entries unsealed for AUDIT_CHECKPOINT_MINUTES, one at a clean stop, and an anchor checkpoint with every pruning.
 * Every checkpoint this instance makes is appended to AUDIT_CHECKPOINT_FILE.
 */

export const signCheckpoint: Signer = (payload, trx) => signBytes(payload, CHECKPOINT_TYPE, trx);

export interface Sealing {
  /** After an entry is appended (lib/audit/record.ts). */
  appended(seq: number): void;
  /** Seals what is unsealed (a clean stop). */
  flush(): Promise<void>;
  /** For pruneAudit: seals the new start (the file is written once the pruning commits, by `kept`). */
  pruning(): { sealCut: ReturnType<typeof anchorSealer>; kept: () => Promise<void> };
  /** Stops the minute's look, after a last seal. */
  stop(): Promise<void>;
}

/**
 * The portal's own periodic check (lib/alerts/audit-check.ts): the chain and every checkpoint, with the keys the
 * portal publishes and the checkpoints this instance appended to its file. Keys read from the database are what a
 * database writer could add to, so this catches edits, cuts and rewrites, not a forger who also planted a key;
 * `npm run audit -- verify --keys <a set kept elsewhere>` is the check that trusts nothing in the database.
 */
export function sealedCheck(config: Pick<PortalConfig, 'AUDIT_CHECKPOINT_FILE' | 'PORTAL_DATA_DIR'>) {
  return async (db: Kysely<Database>): Promise<string[]> => {
    const keys = (await publishedKeys(db)) as JSONWebKeySet;
    const outside = checkpointsIn(await readFile(checkpointFile(config), 'utf8').catch(() => ''));
    return (await verifySealed(db, { keys, outside })).problems;
  };
}

export function startSealing(db: Kysely<Database>, config: PortalConfig): Sealing {
  const file = checkpointFile(config);
  const said = log('audit');
  const rules = { every: config.AUDIT_CHECKPOINT_EVERY, minutes: config.AUDIT_CHECKPOINT_MINUTES };
  let running: Promise<void> = Promise.resolve();
  const keep = async (made: StoredCheckpoint[]) => {
    for (const c of made)
      said.info({ checkpoint: c.id, headSeq: c.headSeq }, `audit trail sealed up to entry ${c.headSeq} (checkpoint ${c.id})`);
    await keepOutside(file, made).catch((error: unknown) =>
      said.error({ err: error, file }, 'a checkpoint could not be appended to the file kept outside the store; it is in the store'),
    );
  };
  // One at a time in this process; across instances the checkpoints lock orders them.
  const seal = (force = false): Promise<void> => {
    const next = running.then(() => sealAudit(db, signCheckpoint, { ...rules, force })).then((made) => keep(made ? [made] : []));
    running = next.catch(() => undefined);
    return next;
  };
  const warn = (error: unknown) => said.warn({ err: error }, 'sealing the audit trail failed; tried again within a minute');
  // A look every minute (a failure is logged by the registry); at a stop, after running work ended, what is unsealed.
  const job = registerJob({
    name: 'audit-sealing',
    everyMs: 60_000,
    lease: { own: 'every instance seals; the checkpoints lock orders them' },
    stopsAt: 'close',
    run: () => seal(),
    onStop: () => {
      whenAuditAppended(undefined);
      return seal(true).catch(warn);
    },
  });
  const sealing: Sealing = {
    appended: (seq) => {
      if (seq % rules.every === 0) void seal(true).catch(warn);
    },
    flush: () => seal(true).catch(warn),
    pruning: () => {
      const made: StoredCheckpoint[] = [];
      return { sealCut: anchorSealer(signCheckpoint, made), kept: () => keep(made) };
    },
    stop: job.stop,
  };
  whenAuditAppended(sealing.appended);
  return sealing;
}
