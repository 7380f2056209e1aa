import 'server-only';
import type { Kysely } from 'kysely';
import { registerJob } from '../jobs/registry';
import { log } from '../log';
import { signDocument } from '../proof/signer';
import { firstEventSeqSince, keepCheckpoint, lastCheckpoint, lastEventSeq } from '../store/events';
import type { Database } from '../store/schema';
import { listTokens, type ApiToken } from '../store/tokens';
import { hashAtOrBefore, readEventsAfter } from './read';

/**
 * Signed checkpoints of each token's stream: after every EVERY of its events, and hourly for what came since,
 * the portal signs how many events it gave the token between two numbers and the last one's hash (the statement
 * of a receipt, ./receipt.ts), and keeps it (`event_checkpoints`). A consumer fetches them
 * (GET /api/v1/events/checkpoints) and checks its saved events against each with the offline verifier; what was
 * signed then cannot be told differently later.
 */

type Db = Kysely<Database>;

/** The JWS type of a receipt and of a signed checkpoint: the same statement, signed now or then. */
export const RECEIPT_TYPE = 'picks-events-receipt+json';

export const EVERY = 1_000;
const HOURLY_MS = 3_600_000;

const streaming = (token: ApiToken, now: number) =>
  token.revokedMs === null && token.expiresMs > now && token.scope.content.includes('changes');

type Signer = (statement: Record<string, unknown>) => Promise<string>;
const portalSigner: Signer = async (statement) => (await signDocument(statement, RECEIPT_TYPE)).jws;

/** Signs what is due for one token; the number of checkpoints kept. */
export async function checkpointToken(
  db: Db,
  token: ApiToken,
  firstKept: number,
  now = Date.now(),
  signer = portalSigner,
  every = EVERY,
): Promise<number> {
  const last = await lastCheckpoint(db, token.id);
  let after = Math.max(last?.toSeq ?? 0, firstKept - 1);
  let prev = last && last.toSeq === after ? last.lastHash : await hashAtOrBefore(db, token.scope, after);
  let lastAt = last?.atMs ?? 0;
  let kept = 0;
  let segment: { from: number; count: number; to: number; hash: string | null } = { from: after + 1, count: 0, to: after, hash: null };
  const sign = async () => {
    const statement = {
      tokenId: token.id,
      from: segment.from,
      to: segment.to,
      count: segment.count,
      firstId: segment.from,
      lastId: segment.to,
      prev,
      lastHash: segment.hash,
      issuedAt: new Date(now).toISOString(),
      checkpoint: true,
    };
    const jws = await signer(statement);
    const checkpoint = {
      tokenId: token.id,
      fromSeq: segment.from,
      toSeq: segment.to,
      count: segment.count,
      lastHash: segment.hash,
      jws,
      atMs: now,
    };
    if (await keepCheckpoint(db, checkpoint)) kept += 1;
    prev = segment.hash;
    after = segment.to;
    lastAt = now;
    segment = { from: after + 1, count: 0, to: after, hash: null };
  };
  for (let cursor = after; ;) {
    const read = await readEventsAfter(db, token.scope, cursor, every - segment.count, segment.hash ?? prev);
    for (const event of read.events) {
      segment.count += 1;
      segment.to = event.seq;
      segment.hash = event.hash;
    }
    if (segment.count === every) await sign();
    if (read.events.length === 0 || read.scanned <= cursor) break;
    cursor = read.scanned;
  }
  if (segment.count > 0 && now - lastAt >= HOURLY_MS) await sign();
  return kept;
}

/** One pass over every token that reads the stream. */
export async function checkpointAll(
  db: Db,
  retentionDays: number,
  now = Date.now(),
  signer = portalSigner,
  every = EVERY,
): Promise<number> {
  const tokens = (await listTokens(db, null)).filter((token) => streaming(token, now));
  if (tokens.length === 0) return 0;
  const firstKept =
    (await firstEventSeqSince(db, new Date(now - retentionDays * 86_400_000).toISOString())) ?? (await lastEventSeq(db)) + 1;
  let kept = 0;
  for (const token of tokens) kept += await checkpointToken(db, token, firstKept, now, signer, every);
  return kept;
}

/** The job: every minute, by one instance at a time. */
export function checkpointEvents(db: Db, retentionDays: number): void {
  registerJob({
    name: 'event-checkpoints',
    everyMs: 60_000,
    lease: 'one instance',
    firstAfterMs: 30_000,
    run: async () => {
      const kept = await checkpointAll(db, retentionDays);
      if (kept > 0) log('events').info({ kept }, 'signed checkpoints of event streams');
      return kept > 0 ? 'ok' : 'skipped';
    },
  });
}
