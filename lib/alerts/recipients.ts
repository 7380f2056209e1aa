import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { listUsers } from '../store/users';

/** Who alert emails go to: every admin whose account is enabled (choosing per person is the next step). */
export async function alertRecipients(db: Kysely<Database>): Promise<string[]> {
  return (await listUsers(db)).filter((user) => user.role === 'admin' && !user.disabled).map((user) => user.email);
}
