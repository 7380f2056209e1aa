import type { Kysely } from 'kysely';
import { describeDifference, scopeDifferences } from '../feed-health/compute';
import type { LicenceChange, StateEntry } from '../store/feed-health';
import { queueAlerts, type Alert, type AlertInput } from '../store/alerts';
import type { Database } from '../store/schema';

type Db = Kysely<Database>;

/**
 * Alerts of the feed's health. A change of a sport's state queues an alert, held for ALERT_HOLD_SECONDS:
 * if the state has not lasted by then (a flap) the alert is dropped, unsent. Due alerts of one kind go out
 * together, one message for all their sports (not one per sport or per poll); a recovery says how long the
 * trouble lasted, and is sent only if the trouble was. Every instance dispatches (./dispatch.ts, ./start.ts),
 * and each alert is claimed before it is sent, so it goes out once. Failed sends are tried again after 1, 5,
 * 15 and 60 minutes, then marked failed; all of it is kept in the notification log (/alerts).
 */

export const RETRY_AFTER_MS = [60_000, 300_000, 900_000, 3_600_000];
/** How long a dispatcher's claim on alerts it is sending lasts (one that stopped mid-send gives them back). */
export const SEND_CLAIM_MS = 5 * 60_000;

/** When an attempt that failed is tried again: null after the last. */
export const nextTry = (attemptsBefore: number, now: number) =>
  attemptsBefore < RETRY_AFTER_MS.length ? now + RETRY_AFTER_MS[attemptsBefore]! : null;

export function kindOf(entry: Pick<StateEntry, 'state' | 'side'>): string {
  if (entry.state === 'healthy') return 'sport.recovered';
  if (entry.side === 'licence') return 'licence.refused';
  if (entry.side === 'portal') return 'portal.not-polling';
  return `sport.${entry.state}`;
}

const lasted = (ms: number) => {
  const minutes = Math.round(ms / 60_000);
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
};

/** The alerts a set of state changes calls for; `previous` is each sport's state before them. A first healthy state is not news. */
export function alertsFor(changed: StateEntry[], previous: Map<string, StateEntry>, holdMs: number): AlertInput[] {
  return changed
    .filter((entry) => entry.state !== 'healthy' || previous.has(entry.sport))
    .map((entry) => {
      const before = previous.get(entry.sport);
      return {
        kind: kindOf(entry),
        sport: entry.sport,
        state: entry.state,
        side: entry.side,
        reason: entry.reason,
        detail: entry.state === 'healthy' && before ? `${before.state} for ${lasted(entry.at - before.at)}: ${before.reason}` : null,
        createdMs: entry.at,
        dueMs: entry.at + holdMs,
      };
    });
}

/** A change of the licensed scope: alerted at once (it is not a state that could flap back). */
export function licenceChangeAlert(change: LicenceChange): AlertInput {
  const said = scopeDifferences(change.before, change.after)
    .map((d) => `${d.field}: ${describeDifference(d)}`)
    .join('; ');
  return {
    kind: 'licence.changed',
    sport: 'licence',
    state: 'changed',
    side: 'licence',
    reason: `The licensed scope changed: ${said}`,
    detail: null,
    createdMs: change.at,
    dueMs: change.at,
  };
}

export async function queueLicenceChange(db: Db, change: LicenceChange): Promise<void> {
  await queueAlerts(db, [licenceChangeAlert(change)]);
}

export async function queueHealthAlerts(db: Db, changed: StateEntry[], previous: Map<string, StateEntry>, holdMs: number): Promise<void> {
  await queueAlerts(db, alertsFor(changed, previous, holdMs));
}

export interface Message {
  to: string[];
  subject: string;
  text: string;
}

const TITLES: Record<string, string> = {
  'sport.degraded': 'degraded',
  'sport.down': 'down',
  'sport.recovered': 'recovered',
  'licence.refused': 'down: the licence',
  'portal.not-polling': 'down: no instance polling',
  'licence.changed': 'changed',
  'delivery.failed': 'failed',
  'delivery.paused': 'paused',
  'delivery.recovered': 'delivering again',
  'record.resettled': 're-settled',
  'audit.failed': 'failed its check',
  'token.quota': 'over its daily quota',
  'token.expiring': 'expiring',
  'token.unused': 'unused',
};

/** Settled records whose result changed, found by one poll: one alert naming them (the first 20). */
export async function queueResettlements(
  db: Db,
  found: { id: string; sport: string | null; was: string; now: string | null }[],
  at: number,
): Promise<void> {
  if (found.length === 0) return;
  const named = found.slice(0, 20).map((r) => `${r.id} (${r.sport ?? 'no sport'}): ${r.was} → ${r.now ?? 'no result'}`);
  const more = found.length > 20 ? `; and ${found.length - 20} more` : '';
  await queueAlerts(db, [
    {
      kind: 'record.resettled',
      sport: `${found.length} record${found.length === 1 ? '' : 's'}`,
      state: 'changed',
      side: 'upstream',
      reason: `Settled results of delivered records changed: ${named.join('; ')}${more}`,
      detail: null,
      createdMs: at,
      dueMs: at,
    },
  ]);
}

/** Alerts of a state, held until it has lasted; the others are events, sent when due. */
export const HELD_KINDS = new Set(['sport.degraded', 'sport.down', 'sport.recovered', 'licence.refused', 'portal.not-polling']);

/** A delivery's run ended: failed (or paused by a third failure in a row), or delivered after failures. */
export async function queueDeliveryAlert(
  db: Db,
  run: { delivery: string; ok: boolean; failuresBefore: number; paused: boolean; error: string | null; at: number },
): Promise<void> {
  if (run.ok && run.failuresBefore === 0) return;
  const kind = run.ok ? 'delivery.recovered' : run.paused ? 'delivery.paused' : 'delivery.failed';
  const reason = run.ok
    ? `Delivered again after ${run.failuresBefore} failed run${run.failuresBefore === 1 ? '' : 's'}`
    : run.paused
      ? `Paused after 3 failed runs in a row: ${run.error ?? 'unknown error'}`
      : `The run failed, nothing was delivered: ${run.error ?? 'unknown error'}`;
  await queueAlerts(db, [
    {
      kind,
      sport: `delivery ${run.delivery}`,
      state: run.ok ? 'healthy' : 'down',
      side: null,
      reason,
      detail: null,
      createdMs: run.at,
      dueMs: run.at,
    },
  ]);
}

/** One message for the due alerts of one kind. */
export function messageFor(alerts: Alert[], to: string[], portalUrl: string): Message {
  const kind = alerts[0]!.kind;
  const sports = alerts.map((a) => a.sport);
  // A quota warning before the whole of it says how far it is.
  const share = kind === 'token.quota' && alerts.length === 1 && alerts[0]!.state !== 'over quota' ? `at ${alerts[0]!.state}` : null;
  const subject = `[Picks portal] ${sports.length === 1 ? sports[0] : `${sports.length} sports`} ${share ?? TITLES[kind] ?? kind}`;
  const lines = alerts.map(
    (a) => `- ${a.sport}: ${a.state}${a.side ? ` (${a.side}'s side)` : ''}. ${a.reason}.${a.detail ? ` Before: ${a.detail}.` : ''}`,
  );
  const since = new Date(Math.min(...alerts.map((a) => a.createdMs))).toISOString();
  if (kind.startsWith('token.'))
    return { to, subject, text: `API tokens need attention (${since}):\n\n${lines.join('\n')}\n\nSee ${portalUrl}/tokens\n` };
  return { to, subject, text: `Feed health changed at ${since}:\n\n${lines.join('\n')}\n\nSee ${portalUrl}/health\n` };
}
