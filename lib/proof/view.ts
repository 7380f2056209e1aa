import 'server-only';
import { toAppError, type AppErrorJson } from '../errors';
import { fromStore } from '../store';
import { auditHead } from '../store/audit';
import { listCheckpoints, sealedUpTo, type StoredCheckpoint } from '../store/checkpoints';
import { listSigningKeys, type StoredKey } from '../store/signing-keys';

/** /admin/proofs: the published keys, the latest checkpoints, and how far the trail is sealed. */
export interface ProofsView {
  keys: StoredKey[];
  checkpoints: (StoredCheckpoint & { kind: string })[];
  head: number;
  sealed: number;
}

const kindOf = (jws: string) => {
  try {
    return String((JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString()) as { kind?: string }).kind ?? 'seal');
  } catch {
    return 'unreadable';
  }
};

export async function proofsView(): Promise<{ ok: true; view: ProofsView } | { ok: false; error: AppErrorJson }> {
  try {
    const view = await fromStore(async (db) => ({
      keys: (await listSigningKeys(db)).reverse(),
      checkpoints: (await listCheckpoints(db, 20)).map((c) => ({ ...c, kind: kindOf(c.jws) })),
      head: (await auditHead(db)).seq,
      sealed: await sealedUpTo(db),
    }));
    return { ok: true, view };
  } catch (error) {
    return { ok: false, error: toAppError(error).toJSON() };
  }
}
