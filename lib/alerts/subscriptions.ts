import type { Kysely } from 'kysely';
import { demoRefused, standing } from '../auth/principal';
import { can, isRole, type Capability, type Role } from '../vocabulary/roles';
import type { Alert } from '../store/alerts';
import { listDeliveries } from '../store/deliveries';
import type { Database } from '../store/schema';
import { getToken } from '../store/tokens';
import { listUsers } from '../store/users';

/**
 * Who receives which alerts by email. Each person chooses among the kinds their role may open (checked when
 * they choose, and again when each alert is sent); until they do, admins receive every kind and everyone else
 * none (admins opt out, the others opt in). An alert about one token or one delivery goes to admins and that
 * token's or delivery's owner only. Whoever the one rule for who may act refuses (removed, disabled, a demo
 * account off the sandbox; lib/auth/principal.ts) receives nothing.
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
  'token.webhook-disabled',
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
  'token.quota': 'An API token read 75 %, 90 % or all of its daily records',
  'token.expiring': 'An API token expires within 7 days',
  'token.unused': 'An API token unused for 30 days',
  'token.webhook-disabled': 'A token’s webhook disabled after failing for 3 days',
};

/** The capability that opens what each kind tells about: only people whose role has it may receive it. */
export const KIND_CAPABILITY: Record<AlertKind, Capability> = {
  'sport.degraded': 'browse',
  'sport.down': 'browse',
  'sport.recovered': 'browse',
  'licence.refused': 'browse',
  'licence.changed': 'browse',
  'portal.not-polling': 'browse',
  'delivery.failed': 'deliveries',
  'delivery.paused': 'deliveries',
  'delivery.recovered': 'deliveries',
  'record.resettled': 'browse',
  'audit.failed': 'audit',
  'token.quota': 'tokens',
  'token.expiring': 'tokens',
  'token.unused': 'tokens',
  'token.webhook-disabled': 'tokens',
};

/** The kinds a role may receive. */
export const kindsFor = (role: Role): AlertKind[] => ALERT_KINDS.filter((kind) => can(role, KIND_CAPABILITY[kind]));

/** Kinds about one person's own token or delivery. */
const owned = (kind: string) => kind.startsWith('token.') || kind.startsWith('delivery.');

/** As each alert happens, or in one email a day (ALERT_DIGEST_HOUR, UTC). */
export const ALERT_DELIVERIES = ['each', 'digest'] as const;
export type AlertDelivery = (typeof ALERT_DELIVERIES)[number];

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

/** Admins receive every kind until they choose; anyone else only what needs them about their own tokens (its quota running out, a webhook disabled). */
const defaultKinds = (role: string): AlertKind[] => (role === 'admin' ? [...ALERT_KINDS] : ['token.quota', 'token.webhook-disabled']);

/** Every subscription of someone who may receive alerts now, each with only the kinds their role may open (admins see them all on /alerts). */
export async function subscriptions(db: Db): Promise<Subscription[]> {
  const [users, rows] = await Promise.all([listUsers(db), db.selectFrom('alert_subscriptions').selectAll().execute()]);
  const chosen = new Map(
    rows.map((row) => [row.email, { kinds: JSON.parse(row.kinds) as string[], delivery: row.delivery, updatedAt: row.updated_at }]),
  );
  const refused = demoRefused();
  return users
    .flatMap((user) => {
      if (!isRole(user.role)) return [];
      const account = { ...user, role: user.role };
      return standing(account, { kind: 'recipient', email: user.email }, null, refused).ok ? [account] : [];
    })
    .map((user) => {
      const choice = chosen.get(user.email);
      const allowed = kindsFor(user.role);
      return {
        email: user.email,
        role: user.role,
        kinds: (choice ? ALERT_KINDS.filter((k) => choice.kinds.includes(k)) : defaultKinds(user.role)).filter((k) => allowed.includes(k)),
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

/** The owner of the token or delivery an alert is about, as they are now (null: none, or not an owned kind). */
export async function ownerOf(db: Db, alert: Pick<Alert, 'kind' | 'sport'>): Promise<string | null> {
  if (alert.kind.startsWith('token.')) {
    const id = /\((tok_[0-9a-f]{12})\)$/.exec(alert.sport)?.[1];
    return id ? ((await getToken(db, id))?.owner ?? null) : null;
  }
  if (alert.kind.startsWith('delivery.')) {
    const name = alert.sport.replace(/^delivery /, '');
    return (await listDeliveries(db)).find((d) => d.name === name)?.createdBy ?? null;
  }
  return null;
}

/** Whether this person receives this alert: they chose its kind (which their role may open), and an owned kind is theirs or they are an admin. */
export const receives = (person: Subscription, alert: Pick<Alert, 'kind'>, owner: string | null) =>
  (person.kinds as string[]).includes(alert.kind) && (!owned(alert.kind) || person.role === 'admin' || person.email === owner);

/** Who receives this alert by email as it happens (those who chose a digest get it there). */
export async function recipientsOf(
  db: Db,
  alert: Pick<Alert, 'kind' | 'sport'>,
  people: Promise<Subscription[]> = subscriptions(db),
): Promise<string[]> {
  const owner = owned(alert.kind) ? await ownerOf(db, alert) : null;
  return (await people).filter((s) => s.delivery === 'each' && receives(s, alert, owner)).map((s) => s.email);
}
