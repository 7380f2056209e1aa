import type { Kysely } from 'kysely';
import { alertsSince, type Alert } from '../store/alerts';
import { claimDigest, claimDueDigests, markDigest } from '../store/alert-channels';
import type { Database } from '../store/schema';
import { nextTry, SEND_CLAIM_MS, type Message } from '.';
import { ALERT_KIND_LABELS, ownerOf, receives, subscriptions, type AlertKind, type Subscription } from './subscriptions';

type Db = Kysely<Database>;
const DAY_MS = 86_400_000;

/**
 * The daily digest: for each person who chose it, one email a day at ALERT_DIGEST_HOUR (UTC) with every
 * alert of their kinds raised over the 24 hours before, sent even when there was none — a quiet day's
 * digest says the alerts themselves are alive. The first instance to claim a person's day sends it; a
 * failed send is tried again after 1, 5, 15 and 60 minutes, like any alert.
 */

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The digest's moment on the day of `now`: that day at `hour`:00 UTC. */
export const digestMoment = (now: number, hour: number) => Date.parse(`${dayOf(now)}T00:00:00Z`) + hour * 3_600_000;

export function digestMessage(to: string, day: string, alerts: Alert[], kinds: AlertKind[], portalUrl: string): Message {
  const lines = alerts.map(
    (a) =>
      `- ${new Date(a.createdMs).toISOString().slice(11, 16)} UTC ${a.kind}: ${a.sport}, ${a.state}${a.side ? ` (${a.side}'s side)` : ''}. ${a.reason}.`,
  );
  const body = alerts.length
    ? `${alerts.length} alert${alerts.length === 1 ? '' : 's'} in the 24 hours before ${day}:\n\n${lines.join('\n')}`
    : `No alert in the 24 hours before ${day}: every state held, and the alerts are working.`;
  const chose = kinds.map((k) => ALERT_KIND_LABELS[k]).join('; ');
  return {
    to: [to],
    subject: `[Picks portal] Daily digest ${day}: ${alerts.length ? `${alerts.length} alert${alerts.length === 1 ? '' : 's'}` : 'all quiet'}`,
    text: `${body}\n\nYou receive: ${chose || 'no kind of alert'} (change it on ${portalUrl}/health).\nSee ${portalUrl}/alerts\n`,
  };
}

export async function sendDigests(
  db: Db,
  options: { now: number; hour: number; send: ((message: Message) => Promise<void>) | null; portalUrl: string },
): Promise<{ sent: number; failed: number }> {
  const result = { sent: 0, failed: 0 };
  if (!options.send) return result;
  const { now } = options;
  const moment = digestMoment(now, options.hour);
  const people = (await subscriptions(db)).filter((s) => s.delivery === 'digest');
  const claimed: { id: string; person: Subscription; attempts: number; moment: number }[] = [];
  // Someone who chose the digest after today's moment gets their first one tomorrow, not at once.
  if (now >= moment)
    for (const person of people.filter((p) => p.updatedAt !== null && Date.parse(p.updatedAt) < moment))
      if (await claimDigest(db, person.email, dayOf(now), now + SEND_CLAIM_MS))
        claimed.push({ id: `${dayOf(now)} ${person.email}`, person, attempts: 0, moment });
  for (const retry of await claimDueDigests(db, now, now + SEND_CLAIM_MS)) {
    const person = people.find((p) => p.email === retry.email);
    if (person) claimed.push({ id: retry.id, person, attempts: retry.attempts, moment: digestMoment(Date.parse(retry.day), options.hour) });
    else await markDigest(db, retry.id, { ok: false, error: 'the person no longer takes a digest', nextMs: null, alerts: 0 });
  }
  // Each alert's owner looked up once for every digest of this check, not once a person.
  const owners = new Map<string, Promise<string | null>>();
  const ownerOnce = (alert: Alert) => owners.get(alert.id) ?? owners.set(alert.id, ownerOf(db, alert)).get(alert.id)!;
  for (const { id, person, attempts, moment: at } of claimed) {
    const alerts: Alert[] = [];
    for (const alert of await alertsSince(db, at - DAY_MS, at)) if (receives(person, alert, await ownerOnce(alert))) alerts.push(alert);
    try {
      await options.send(digestMessage(person.email, dayOf(at), alerts, person.kinds, options.portalUrl));
      await markDigest(db, id, { ok: true, at: now, alerts: alerts.length });
      result.sent += 1;
    } catch (error) {
      await markDigest(db, id, { ok: false, error: (error as Error).message, nextMs: nextTry(attempts, now), alerts: alerts.length });
      result.failed += 1;
    }
  }
  return result;
}
