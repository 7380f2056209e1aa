import { createHash } from 'node:crypto';
import type { JSONWebKeySet } from 'jose';
import { checkJws, type Jwk } from '@/public/verify-picks-file.mjs';
import type { Kysely } from 'kysely';
import { anchor, entryHash, readAudit } from '../store/audit';
import { listCheckpoints } from '../store/checkpoints';
import type { Database } from '../store/schema';
import { CHECKPOINT_TYPE, type CheckpointPayload } from './checkpoints';

/**
 * Checks the audit trail as someone who trusts only the portal's public keys: the hash chain from its anchor,
 * every checkpoint's signature with keys the caller supplies (never keys read from the database), that the
 * checkpoints follow one another, that the chain passes through every one, that a pruned start is sealed by an
 * `anchor` checkpoint, and that every checkpoint kept outside the database is in it unchanged. Names every
 * problem found; states what stays unprovable (entries newer than the newest checkpoint kept outside).
 */

type Db = Kysely<Database>;
const CLOCK_GRACE_MS = 60_000;

export interface SealedVerdict {
  ok: boolean;
  problems: string[];
  entries: number;
  head: { seq: number; hash: string };
  checkpoints: number;
  /** The newest entry a good checkpoint seals. */
  sealedUpTo: number;
  notes: string[];
}

interface Signed {
  payload: CheckpointPayload;
  jws: string;
}

/** Checked by the recipients' own rules (public/verify-picks-file.mjs): its type, a key not compromised, signed before a retirement. */
function readSigned(jws: string, keys: Jwk[]): CheckpointPayload {
  return JSON.parse(checkJws(jws, keys, CHECKPOINT_TYPE).payload.toString('utf8')) as CheckpointPayload;
}

export interface VerifyOptions {
  keys: JSONWebKeySet;
  outside?: string[];
  /**
   * The database is a copy (a backup) that may be older than checkpoints kept outside: those made after its newest
   * entry are checked against the entries they reach, and noted. A live database holds every checkpoint kept outside.
   */
  copy?: boolean;
}

export async function verifySealed(db: Db, options: VerifyOptions): Promise<SealedVerdict> {
  const keys = options.keys.keys as Jwk[];
  const problems: string[] = [];
  const notes: string[] = [];

  // The checkpoints in the store, each signature checked, each following the one before.
  const stored = await listCheckpoints(db);
  const good: Signed[] = [];
  let previous: { id: number; hash: string } | null = null;
  for (const checkpoint of stored) {
    try {
      const payload = readSigned(checkpoint.jws, keys);
      if (payload.id !== checkpoint.id || payload.headSeq !== checkpoint.headSeq || payload.headHash !== checkpoint.headHash)
        problems.push(`checkpoint ${checkpoint.id}: its row does not say what its signature says`);
      const expectedId: number = (previous?.id ?? 0) + 1;
      if (payload.id !== expectedId)
        problems.push(`checkpoint ${expectedId}${payload.id - 1 > expectedId ? `–${payload.id - 1}` : ''} removed`);
      else if (payload.previous !== (previous?.hash ?? null))
        problems.push(`checkpoint ${payload.id} does not follow checkpoint ${previous?.id}`);
      const hash = createHash('sha256')
        .update(Buffer.from(checkpoint.jws.split('.')[1]!, 'base64url'))
        .digest('hex');
      previous = { id: payload.id, hash };
      good.push({ payload, jws: checkpoint.jws });
    } catch (error) {
      problems.push(
        `checkpoint ${checkpoint.id}: its signature does not hold with the keys given (forged or edited: ${(error as Error).message})`,
      );
    }
  }

  // The checkpoints kept outside: each must be in the store, unchanged — but for those made after the store's newest
  // (a backup older than the file kept outside), which are checked against the entries they reach, below.
  const inStore = new Map(good.map((g) => [g.payload.id, g.jws]));
  const newestStored = Math.max(0, ...stored.map((c) => c.id));
  const outside: Signed[] = [];
  const later: Signed[] = [];
  for (const jws of options.outside ?? []) {
    try {
      const payload = await readSigned(jws, keys);
      outside.push({ payload, jws });
      if (!stored.some((c) => c.id === payload.id)) {
        if (options.copy && payload.id > newestStored) later.push({ payload, jws });
        else problems.push(`checkpoint ${payload.id}, kept outside the database, is missing from it`);
      } else if (inStore.get(payload.id) !== jws)
        problems.push(`checkpoint ${payload.id} in the database differs from the copy kept outside`);
    } catch (error) {
      problems.push(`a checkpoint kept outside does not verify with the keys given (${(error as Error).message})`);
    }
  }

  // The chain, from its anchor; the hash of every entry a checkpoint seals.
  const start = await anchor(db);
  // Each checkpoint once (a copy kept outside is the same checkpoint), by the entry it seals.
  const known = [...new Map([...outside, ...good].map((s) => [s.payload.id, s])).values()];
  const seals = new Map<number, Signed[]>();
  for (const signed of known.filter((s) => s.payload.kind === 'seal'))
    seals.set(signed.payload.headSeq, [...(seals.get(signed.payload.headSeq) ?? []), signed]);
  if (
    start.seq > 0 &&
    !known.some((s) => s.payload.kind === 'anchor' && s.payload.headSeq === start.seq && s.payload.headHash === start.hash)
  )
    problems.push(
      `the trail starts after entry ${start.seq}, but no signed checkpoint records a pruning there: entries were deleted from its start and the anchor rewritten`,
    );
  let expected = start;
  let lastAt = '';
  let entries = 0;
  let chain: string | null = null; // the first entry that does not fit
  for await (const entry of readAudit(db)) {
    if (chain === null) {
      if (entry.seq !== expected.seq + 1) chain = `entry ${entry.seq}: entries ${expected.seq + 1}–${entry.seq - 1} before it are missing`;
      else if (entry.prevHash !== expected.hash) chain = `entry ${entry.seq}: it does not follow the entry before it`;
      else if (entryHash(entry) !== entry.hash) chain = `entry ${entry.seq}: its content was changed`;
      if (chain) problems.push(chain);
    }
    for (const signed of seals.get(entry.seq) ?? [])
      if (signed.payload.headHash !== entry.hash)
        problems.push(
          `entry ${entry.seq} is not the one checkpoint ${signed.payload.id} sealed: the trail was rewritten from some entry on`,
        );
    seals.delete(entry.seq);
    expected = { seq: entry.seq, hash: entry.hash };
    lastAt = entry.at;
    entries += 1;
  }
  // A checkpoint kept outside and missing here was made after this copy was taken only if it is younger than the
  // copy's newest entry (a minute's grace for instances' clocks); one older was deleted with what it sealed.
  const afterCopy = new Set<number>();
  for (const signed of later) {
    if (lastAt && Date.parse(signed.payload.at) < Date.parse(lastAt) - CLOCK_GRACE_MS)
      problems.push(
        `checkpoint ${signed.payload.id}, kept outside the database, is missing from it (it was made before entry ${expected.seq})`,
      );
    else afterCopy.add(signed.payload.id);
  }
  if (afterCopy.size > 0)
    notes.push(
      `checkpoint${afterCopy.size > 1 ? 's' : ''} ${[...afterCopy].join(', ')}, kept outside, ${afterCopy.size > 1 ? 'were' : 'was'} made after this copy's newest entry (${expected.seq}): checked against the entries ${afterCopy.size > 1 ? 'they reach' : 'it reaches'} in it`,
    );
  for (const [seq, signed] of seals)
    if (seq > start.seq && !signed.every((s) => afterCopy.has(s.payload.id)))
      problems.push(`entry ${seq}, sealed by checkpoint ${signed[0]!.payload.id}, is missing: the newest entries were deleted`);

  const sealedUpTo = Math.max(0, ...known.filter((s) => s.payload.kind === 'seal').map((s) => s.payload.headSeq));
  const outsideUpTo = Math.max(0, ...outside.map((s) => s.payload.headSeq));
  if (expected.seq > sealedUpTo)
    notes.push(`entries ${sealedUpTo + 1}–${expected.seq} are newer than the newest checkpoint: not provable yet`);
  if (!options.outside)
    notes.push(
      'no checkpoints kept outside the database were given (--checkpoints): deleting the newest entries together with their checkpoints cannot be found',
    );
  else if (expected.seq > outsideUpTo)
    notes.push(`entries after ${outsideUpTo} (the newest checkpoint kept outside) rest on checkpoints in the database only`);
  return { ok: problems.length === 0, problems, entries, head: expected, checkpoints: good.length, sealedUpTo, notes };
}
