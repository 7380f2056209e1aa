import type { Kysely } from 'kysely';
import type { Database } from './schema';

/** The upstream's Retry-After as every instance sees it: a time before which nobody asks. Only ever extended. */

type Db = Kysely<Database>;
const SCOPE = 'upstream';

export async function publishPause(db: Db, resumeAt: number): Promise<void> {
  await db
    .insertInto('upstream_pause')
    .values({ scope: SCOPE, resume_at: resumeAt })
    .onConflict((oc) =>
      oc
        .column('scope')
        .doUpdateSet({ resume_at: (eb) => eb.ref('excluded.resume_at') })
        .where('upstream_pause.resume_at', '<', resumeAt),
    )
    .execute();
}

export async function readPause(db: Db): Promise<number> {
  const row = await db.selectFrom('upstream_pause').select('resume_at').where('scope', '=', SCOPE).executeTakeFirst();
  return Number(row?.resume_at ?? 0);
}
