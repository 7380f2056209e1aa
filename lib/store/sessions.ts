import type { Kysely } from 'kysely';
import type { Database } from './schema';

/** Signed-out session identities, kept until the session would have expired anyway. */

type Db = Kysely<Database>;

export async function revokeSession(db: Db, sid: string, expiresAt: number, now = Date.now()): Promise<void> {
  await db
    .insertInto('revoked_sessions')
    .values({ sid, expires_at: expiresAt })
    .onConflict((oc) => oc.column('sid').doUpdateSet({ expires_at: expiresAt }))
    .execute();
  await db.deleteFrom('revoked_sessions').where('expires_at', '<=', now).execute();
}

export async function isSessionRevoked(db: Db, sid: string, now = Date.now()): Promise<boolean> {
  const row = await db.selectFrom('revoked_sessions').select('sid').where('sid', '=', sid).where('expires_at', '>', now).executeTakeFirst();
  return row !== undefined;
}
