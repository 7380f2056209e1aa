import 'server-only';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { mayActIn } from '../auth/principal';
import { AppError, toAppError } from '../errors';
import { fileLabel, fileStamp } from '../export/file-headers';
import { walkSummary } from '../picks-api';
import { licenceOrNull } from '../picks-api/portal';
import { keepDelivered, type Keeping } from '../history/keep';
import type { FileProof } from '../proof/attest';
import { finishProof } from '../proof/file-proof';
import { signDocument } from '../proof/signer';
import { MANIFEST_TYPE, MANIFEST_VERSION } from '../audit/manifest';
import { isSealed } from '../store/at-rest';
import { pinHostKey, renewRun, stillRunning, type Delivery } from '../store/deliveries';
import { keepRenewed } from '../jobs/renewals';
import type { Database } from '../store/schema';
import { toDirectory, type Finished } from './destinations';
import { toSftp } from './sftp';
import { toWebhook } from './webhook';
import { s3Host, toS3 } from './s3';
import { checkSpoolSpace } from './limits';
import { encryptFile } from './encryption';
import { openSecret, secretBinding } from './secrets';
import { log } from '../log';
import { runningHere, untilStored } from './kept';
import { correctsOf, keepCorrection } from './corrections';
import { produce } from './produce';
import { runTable } from './table-run';
import { recordRunEnd, type RunEnd } from './run-end';
import { maskedWebhookUrl, pinTarget, type Resolver } from './targets';
import type { PrivateTargets } from './targets';

/**
 * One run of a delivery: the file is made in full in a private spool first (the same export code as
 * downloads, or the change feed's), and only a complete file goes to the destination, under a temporary
 * name renamed after its last byte, with its manifest. A run that fails anywhere leaves nothing there and
 * is recorded `failed` with the error; three failures in a row pause the delivery. Every run is in the
 * audit trail as `delivery:<name>`.
 */

export interface DeliverySettings {
  root: string;
  secretKey: string | null;
  /** SFTP and webhook targets on loopback or private networks are allowed (lib/deliveries/targets.ts). */
  allowPrivate: PrivateTargets;
  /** Where runs spool their file, and the free space a run needs there (default: the OS's temp directory, no minimum). */
  spoolDir?: string;
  spoolMinFreeMb?: number;
  /** Walk slots (lib/walk-slots.ts); default: no limit beyond one run per delivery. */
  limits?: { MAX_EXPORTS_PER_USER: number; MAX_CONCURRENT_EXPORTS: number };
  /** How target names are resolved, and which addresses pass (tests); default: the system's DNS, global unicast only. */
  resolver?: Resolver;
  allowedAddress?: (address: string) => boolean;
}

export const spoolOf = (settings: DeliverySettings) => ({
  spoolDir: settings.spoolDir ?? tmpdir(),
  spoolMinFreeMb: settings.spoolMinFreeMb ?? 0,
});

export interface RunTicket {
  id: string;
  trigger: 'schedule' | 'manual' | 'retry' | 'correction';
  /** Gives back the run's walk slot. */
  release?: () => void;
}

const LEASE_MS = 60_000;
export const newRunId = () => `run_${randomUUID().replace(/-/g, '').slice(0, 20)}`;

export async function executeRun(db: Kysely<Database>, delivery: Delivery, ticket: RunTicket, settings: DeliverySettings): Promise<void> {
  const startedMs = Date.now();
  runningHere().add(ticket.id);
  const stopRenewing = keepRenewed(20_000, () => renewRun(db, ticket.id, Date.now() + LEASE_MS));
  let dir: string | null = null;
  // What and when (UTC), and the run, so two runs in one second never share a name; corrections say so in theirs.
  const correction = ticket.trigger === 'correction';
  const what = `${delivery.kind}${correction ? '-corrections' : ''}`;
  const file = `${fileLabel(delivery.name) || 'delivery'}-${what}-${fileStamp(new Date(startedMs))}-${ticket.id.slice(4, 10)}.${delivery.format}`;
  let spool = '';
  const hash = createHash('sha256');
  let bytes = 0;
  let records = 0;
  let resolved: Record<string, string> = delivery.filters;
  let walk: ReturnType<typeof walkSummary> = null;
  let proof: FileProof | null = null;
  let result: RunEnd;
  let takenOver = false;
  let keeping: Keeping | null = null;

  try {
    await ownerMayRun(db, delivery);
    await checkSpoolSpace(spoolOf(settings));
    dir = await mkdtemp(path.join(spoolOf(settings).spoolDir, 'picks-delivery-'));
    // Which version of each record the run delivers, kept for reconciliation and corrections (lib/history/keep.ts).
    const run = { id: ticket.id, kind: 'run' as const, actor: `delivery:${delivery.name}`, deliveryId: delivery.id };
    if (delivery.destination.type === 'postgres') {
      // A table is written, not placed (./table-run.ts), in one transaction of the partner's database.
      const password = (JSON.parse(openDeliverySecret(delivery, settings) || '{}') as { password?: string }).password ?? '';
      const address = await pinnedOrRefused(String(delivery.destination.host), 'PostgreSQL', settings);
      const stillOurs = async () =>
        !(takenOver = !(await untilStored('checking the run is still this instance’s', () => stillRunning(db, ticket.id), ticket.id)));
      const keep = async () => (keeping = await keepDelivered(run, () => Promise.resolve(db)).catch(() => null));
      const input = { delivery, runId: ticket.id, trigger: ticket.trigger, startedMs, dir, password, address, keep };
      ({ records, bytes, resolved, walk, proof, result } = await runTable(db, input, stillOurs));
    } else {
      spool = path.join(dir, file);
      if (delivery.kind !== 'changes' && !correction) keeping = await keepDelivered(run, () => Promise.resolve(db)).catch(() => null);
      const tap = (chunk: Buffer) => {
        hash.update(chunk);
        bytes += chunk.length;
      };
      const made = await produce(db, delivery, startedMs, spool, tap, keeping, correction);
      records = made.records;
      resolved = made.resolved;
      walk = made.walk ? walkSummary(made.walk) : null;
      proof = made.proof ? finishProof(made.proof) : null;
      const sha256 = hash.digest('hex');
      const manifest = {
        manifestVersion: MANIFEST_VERSION,
        delivery: { id: delivery.id, name: delivery.name },
        run: ticket.id,
        kind: delivery.kind,
        format: delivery.format,
        file,
        filters: delivery.filters,
        resolvedFilters: resolved,
        records,
        bytes,
        sha256,
        licence: proof ? proof.licence.licenceId : ((await licenceOrNull())?.licenceId ?? null),
        recordIds: proof?.recordIds ?? null,
        dataAsOf: proof?.dataAsOf ?? null,
        licenceAttestation: proof?.licence ?? null,
        requestedBy: { delivery: delivery.id, trigger: ticket.trigger },
        // What the walk saw while the upstream moved: duplicates dropped, later passes and what they added (null: nothing moved).
        walk,
        // A correction names the runs whose records it corrects, and how many of each.
        ...(made.corrected ? { corrects: correctsOf(made.corrected) } : {}),
        startedAt: new Date(startedMs).toISOString(),
        finishedAt: new Date().toISOString(),
      };
      // Never placed unless the run is still this instance's: after an outage longer than its lease, another instance
      // may have taken it for crashed and retried it. While the store is away, the file waits in the spool.
      takenOver = !(await untilStored('checking the run is still this instance’s', () => stillRunning(db, ticket.id), ticket.id));
      if (takenOver) throw new AppError({ code: 'DELIVERY_FAILED', message: 'taken for crashed while the store was away' });
      // Encrypted to the recipient's key when the delivery names one: only `<file>.pgp` reaches the destination.
      const sealed = delivery.encryptTo ? { spool: `${spool}.pgp`, file: `${file}.pgp` } : { spool, file };
      if (delivery.encryptTo) {
        await encryptFile(spool, sealed.spool, delivery.encryptTo.armoured);
        Object.assign(manifest, { encryption: { format: 'openpgp', recipient: delivery.encryptTo.fingerprint, placedAs: sealed.file } });
      }
      const signed = await signDocument(manifest, MANIFEST_TYPE);
      const contentType = delivery.encryptTo ? 'application/pgp-encrypted' : made.contentType;
      const placed = await deliver(db, delivery, { ...sealed, manifestName: file, manifest, signed, contentType }, settings, startedMs);
      result = { file: placed, sha256, licence: manifest.licence, until: made.until ?? null };
      // What the destination holds now: the next correction starts from it.
      if (made.corrected)
        await untilStored('the corrections sent', () => keepCorrection(db, delivery, ticket.id, made.corrected!), ticket.id);
    }
  } catch (error) {
    const failure = toAppError(error);
    result = { failure, message: failure.code === 'INTERNAL' ? (error as Error).message : failure.message };
  }
  keeping?.finish('file' in result && !takenOver);
  const said = log('deliveries', { run: ticket.id, delivery: delivery.id });
  try {
    // Another instance took the run for crashed (and retries it): its row is theirs to write; nothing was placed.
    if (takenOver) return void said.warn(`${delivery.name}: not placed; the run was taken for crashed while the store was away`);
    const paused = await recordRunEnd(db, delivery, ticket.id, { startedMs, records, bytes, resolved, walk, proof }, result);
    if ('file' in result)
      said.info(
        { records, bytes, sha256: result.sha256, ms: Date.now() - startedMs },
        `${delivery.name}: run complete, ${result.file} placed`,
      );
    else
      said.error(
        { code: result.failure.code, paused },
        `${delivery.name}: run failed, nothing delivered: ${result.message}${paused ? ' (paused after 3 failures in a row)' : ''}`,
      );
  } catch (error) {
    // The instance stopped before the store came back: another instance finds the run, and its file by its manifest.
    said.error({ problem: (error as Error).message }, `${delivery.name}: the run's outcome was not written before this instance stopped`);
  } finally {
    runningHere().delete(ticket.id);
    stopRenewing();
    ticket.release?.();
    if (dir) await rm(dir, { recursive: true, force: true });
    // What the run delivered is read back from its spool before the run is over: reconcilable at once, and no spool left.
    await keeping?.done;
  }
}

/** A delivery acts for its owner (lib/auth/principal.ts): a removed, disabled or demoted owner's runs fail, loudly. */
async function ownerMayRun(db: Kysely<Database>, delivery: Delivery): Promise<void> {
  const principal = { kind: 'delivery' as const, id: delivery.id, owner: delivery.createdBy, ownerSinceMs: Date.parse(delivery.createdAt) };
  const owner = await mayActIn(db, principal, 'deliveries');
  if (!owner.ok)
    throw new AppError({
      code: 'OWNER_NOT_ALLOWED',
      message: `This delivery runs for ${delivery.createdBy}, and nothing was delivered: ${owner.reason}. It runs again once they may run deliveries.`,
    });
}

/** The delivery's secret, opened only for the destination it was entered for (lib/deliveries/secrets.ts); '' when none. */
function openDeliverySecret(delivery: Delivery, settings: DeliverySettings): string {
  if (!delivery.secret) return '';
  if (!settings.secretKey) throw toAppError(new Error('DELIVERY_SECRET_KEY is not set: the delivery secret cannot be opened'));
  try {
    return openSecret(delivery.secret, settings.secretKey, secretBinding(delivery.destination));
  } catch (error) {
    throw new AppError({ code: 'DELIVERY_FAILED', message: `The delivery's secret was not used: ${(error as Error).message}.` });
  }
}

/** Resolved and checked once per run: the connection goes to this address and no other (DNS rebinding). */
async function pinnedOrRefused(host: string, what: string, settings: DeliverySettings) {
  const target = await pinTarget(host, settings.allowPrivate, settings.resolver, settings.allowedAddress);
  if (!target.ok) throw new AppError({ code: 'DELIVERY_FAILED', message: `The ${what} host is not allowed: ${target.problem}.` });
  return target;
}

async function deliver(
  db: Kysely<Database>,
  delivery: Delivery,
  done: Finished,
  settings: DeliverySettings,
  startedMs: number,
): Promise<string> {
  const destination = delivery.destination;
  const secret = () => openDeliverySecret(delivery, settings);
  const pinned = (host: string, what: string) => pinnedOrRefused(host, what, settings);
  switch (destination.type) {
    case 'directory':
      return toDirectory(settings.root, String(destination.folder ?? ''), done);
    case 'sftp': {
      const credentials = JSON.parse(secret() || '{}') as { password?: string; privateKey?: string };
      const address = await pinned(String(destination.host), 'SFTP');
      const result = await toSftp(
        {
          host: String(destination.host),
          address,
          port: Number(destination.port ?? 22),
          username: String(destination.username),
          path: String(destination.path ?? '.'),
          hostKey: delivery.hostKey,
          // Trust on first use, at the first handshake and before any credential is sent.
          pin: (fingerprint) => pinHostKey(db, delivery.id, fingerprint),
          ...credentials,
        },
        done,
      );
      return `sftp://${String(destination.host)}:${Number(destination.port ?? 22)}${result.file.startsWith('/') ? '' : '/'}${result.file}`;
    }
    case 's3': {
      const { secretAccessKey } = JSON.parse(secret() || '{}') as { secretAccessKey?: string };
      const where = {
        bucket: String(destination.bucket),
        region: String(destination.region),
        endpoint: (destination.endpoint as string | null) ?? null,
      };
      const address = await pinned(s3Host(where), 'object storage');
      const key = await toS3(
        {
          ...where,
          prefix: String(destination.prefix ?? ''),
          accessKeyId: String(destination.accessKeyId),
          secretAccessKey: secretAccessKey ?? '',
          address,
        },
        done,
        startedMs,
      );
      return `s3://${where.bucket}/${key}`;
    }
    case 'postgres':
      throw new AppError({
        code: 'DELIVERY_FAILED',
        message: 'A table is written by its own run (lib/deliveries/table-run.ts), not placed.',
      });
    case 'webhook': {
      const url = String(destination.url);
      if (isSealed(url))
        throw new AppError({
          code: 'DELIVERY_FAILED',
          message: `Its webhook URL is sealed under another key than this instance's DELIVERY_SECRET_KEY.`,
        });
      const address = await pinned(new URL(url).hostname, 'webhook');
      await toWebhook({ url, address, secret: secret(), deliveryId: delivery.id }, done);
      return `${maskedWebhookUrl(url)} (${done.file})`;
    }
  }
}
