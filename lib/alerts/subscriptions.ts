import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { listUsers } from '../store/users';

/**
 * Who receives which alerts by email. Each person chooses the kinds; until they do, admins receive every
 * kind and everyone else none (admins opt out, the others opt in). A disabled account receives nothing.
 */

export const ALERT_KINDS = [
  'sport.degraded',
  'sport.down',
  'sport.recovered',
  'licence.refused',
  'licence.changed',
  'portal.not-polling',
  'delivery.failed',
  'delivery.paused',
  'delivery.recovered',
  'record.resettled',
  'audit.failed',
  'token.quota',
  'token.expiring',
  'token.unused',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const ALERT_KIND_LABELS: Record<AlertKind, string> = {
  'sport.degraded': 'A sport degraded',
  'sport.down': 'A sport down (the upstream)',
  'sport.recovered': 'A sport recovered',
  'licence.refused': 'The key refused or licence access lost',
  'licence.changed': 'The licensed scope changed',
  'portal.not-polling': 'No instance polling',
  'delivery.failed': 'A delivery run failed',
  'delivery.paused': 'A delivery paused after failures',
  'delivery.recovered': 'A delivery delivering again',
  'record.resettled': 'A settled result changed',
  'audit.failed': 'The audit trail failed its check',
  'token.quota': 'An API token read its whole daily quota',
  'token.expiring': 'An API token expires within 7 days',
  'token.unused': 'An API token unused for 30 days',
};

/** As each alert happens, or in one email a day (ALERT_DIGEST_HOUR, UTC). */
export type AlertDelivery = 'each' | 'digest';

type Db = Kysely<Database>;

export interface Subscription {
  email: string;
  role: string;
  kinds: AlertKind[];
  delivery: AlertDelivery;
  /** true: the person chose; false: their role's default. */
  chosen: boolean;
  /** When they last chose (ISO), or null. */
  updatedAt: string | null;
}

const defaultKinds = (role: string): AlertKind[] => (role === 'admin' ? [...ALERT_KINDS] : []);

/** Every enabled person's subscription (admins see them all on /alerts). */
export async function subscriptions(db: Db): Promise<Subscription[]> {
  const [users, rows] = await Promise.all([listUsers(db), db.selectFrom('alert_subscriptions').selectAll().execute()]);
  const chosen = new Map(
    rows.map((row) => [row.email, { kinds: JSON.parse(row.kinds) as string[], delivery: row.delivery, updatedAt: row.updated_at }]),
  );
  return users
    .filter((user) => !user.disabled)
    .map((user) => {
      const choice = chosen.get(user.email);
      return {
        email: user.email,
        role: user.role,
        kinds: choice ? ALERT_KINDS.filter((k) => choice.kinds.includes(k)) : defaultKinds(user.role),
        delivery: choice?.delivery === 'digest' ? 'digest' : 'each',
        chosen: choice !== undefined,
        updatedAt: choice?.updatedAt ?? null,
      };
    });
}

export async function subscriptionOf(db: Db, email: string): Promise<Subscription | null> {
  return (await subscriptions(db)).find((s) => s.email === email) ?? null;
}

export async function setSubscription(
  db: Db,
  email: string,
  kinds: AlertKind[],
  delivery: AlertDelivery = 'each',
  at = new Date(),
): Promise<void> {
  const value = { kinds: JSON.stringify(ALERT_KINDS.filter((k) => kinds.includes(k))), delivery, updated_at: at.toISOString() };
  await db
    .insertInto('alert_subscriptions')
    .values({ email, ...value })
    .onConflict((oc) => oc.column('email').doUpdateSet(value))
    .execute();
}

/** Who receives an alert of this kind by email as it happens (those who chose a digest get it there). */
export async function recipientsOf(db: Db, kind: string): Promise<string[]> {
  return (await subscriptions(db)).filter((s) => s.delivery === 'each' && (s.kinds as string[]).includes(kind)).map((s) => s.email);
}
