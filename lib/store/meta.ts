import type { Kysely } from 'kysely';
import type { Database } from './schema';

type Db = Kysely<Database>;

export async function readMeta(db: Db, key: string): Promise<string | undefined> {
  return (await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst())?.value;
}

export async function writeMeta(db: Db, key: string, value: string): Promise<void> {
  await db
    .insertInto('meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}
