import 'server-only';
import type { Kysely } from 'kysely';
import type { Check } from '@/public/verify-picks-file.mjs';
import { anchor, findAuditEntry } from '../store/audit';
import { sealedUpTo } from '../store/checkpoints';
import type { Database } from '../store/schema';

/**
 * The portal's own check of a manifest, beyond what a recipient can check: that this portal made the file it
 * describes. The offline verifier trusts any signature dated before its key's retirement (it cannot know better);
 * the portal looks up the sealed audit entry of the export or delivery run the manifest names and compares what it
 * recorded — its hash, the file's sha256, its records — so a manifest it never made is refused here whatever its
 * signing time. Read from the JWS's payload: the verifier has checked the signature beside this.
 */

type Db = Kysely<Database>;
const NAME = 'portal record';
/** A delivery's audit entry is written once its file was placed: within this of the manifest's end. */
const RUN_RECORDED_WITHIN_MS = 15 * 60_000;

interface Named {
  audit?: { seq?: unknown; hash?: unknown };
  delivery?: { id?: unknown; name?: unknown };
  run?: unknown;
  sha256?: unknown;
  records?: unknown;
  finishedAt?: unknown;
  startedAt?: unknown;
}

function payloadOf(jws: string): Named | null {
  try {
    const value = JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as unknown;
    return value && typeof value === 'object' ? (value as Named) : null;
  } catch {
    return null;
  }
}

const refused = (detail: string): Check => ({ name: NAME, ok: false, detail });

export async function madeHere(db: Db, jws: string): Promise<Check> {
  const manifest = payloadOf(jws);
  if (!manifest) return refused('the signature holds no manifest this portal could read');
  const sealed = await sealedUpTo(db);
  const sealedWords = (seq: number) => (seq <= sealed ? 'sealed by a signed checkpoint' : 'not sealed by a checkpoint yet');
  if (typeof manifest.audit?.seq === 'number') {
    const seq = manifest.audit.seq;
    const entry = await findAuditEntry(db, seq);
    if (!entry) {
      const start = await anchor(db);
      return seq <= start.seq
        ? { name: NAME, ok: true, detail: `its audit entry ${seq} is older than what this portal keeps: only the signature vouches for it` }
        : refused(`this portal's audit trail has no entry ${seq}: it never made this file`);
    }
    const differs = [
      entry.hash !== manifest.audit.hash && 'its hash',
      (entry.sha256 ?? null) !== (manifest.sha256 ?? null) && 'the file’s sha256',
      (entry.records === null ? null : Number(entry.records)) !== (manifest.records ?? null) && 'its records',
    ].filter(Boolean);
    if (differs.length > 0)
      return refused(`audit entry ${seq} records another file (${differs.join(', ')} differ): this portal never made this manifest`);
    return { name: NAME, ok: true, detail: `recorded by this portal as audit entry ${seq}, ${sealedWords(seq)}` };
  }
  if (manifest.delivery && typeof manifest.sha256 === 'string' && typeof manifest.finishedAt === 'string') {
    const ended = Date.parse(manifest.finishedAt);
    const started = typeof manifest.startedAt === 'string' ? Date.parse(manifest.startedAt) : ended;
    if (Number.isNaN(ended) || Number.isNaN(started)) return refused('its times are not times: this portal never made it');
    const entry = await db
      .selectFrom('audit_log')
      .select(['seq', 'records'])
      .where('action', '=', 'delivery.run')
      .where('at', '>=', new Date(started).toISOString())
      .where('at', '<=', new Date(ended + RUN_RECORDED_WITHIN_MS).toISOString())
      .where('sha256', '=', manifest.sha256)
      .executeTakeFirst();
    if (!entry)
      return refused(`no delivery run of this portal recorded a file with this sha256 around ${manifest.finishedAt}: it never made it`);
    if (entry.records !== null && Number(entry.records) !== manifest.records)
      return refused(`the delivery run of audit entry ${entry.seq} recorded ${entry.records} records, not ${String(manifest.records)}`);
    return {
      name: NAME,
      ok: true,
      detail: `recorded by this portal as the delivery run of audit entry ${entry.seq}, ${sealedWords(Number(entry.seq))}`,
    };
  }
  return refused('it names no export or delivery run of this portal');
}
