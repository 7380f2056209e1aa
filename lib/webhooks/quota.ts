import 'server-only';
import { AppError } from '../errors';
import type { ApiToken } from '../store/tokens';
import { reserveRecords, takeRequest } from '../tokens/limits';
import { countUse } from '../tokens/usage';
import { V1Error } from '../tokens/refusal';

/**
 * A consumer webhook's events are its token's reads: each event sent is one record of the token's daily quota
 * (taken before it is sent, given back when it was not accepted) and one use in its history, like an event of the
 * stream. A token over today's quota sends nothing more until midnight UTC: its webhooks wait, and say so.
 * What a person sends by hand pays the same (docs/security.md, "What sends for a token pays"): a resent event
 * one request of the token's rate and one record; a resend from an event on, one request now and a record per
 * event as the sender sends them; a test event one request (it holds no record).
 */

export type Taken = { ok: true; settle: (accepted: boolean) => Promise<void> } | { ok: false; waitMs: number; why: string };

export interface QuotaGate {
  take: (token: ApiToken, now: number) => Promise<Taken>;
  /** Counts an accepted event (its body's bytes) in the token's use. */
  count: (token: ApiToken, bytes: number, origin: string, now: number) => void;
}

export const tokenQuota: QuotaGate = {
  take: async (token, now) => {
    try {
      const { settle } = await reserveRecords(token, 1, now);
      return { ok: true, settle: (accepted) => settle(accepted ? 1 : 0) };
    } catch (error) {
      if (!(error instanceof V1Error) || error.code !== 'QUOTA_EXCEEDED') throw error;
      return {
        ok: false,
        waitMs: (error.retryAfterSeconds ?? 60) * 1000,
        why: `its token read its ${token.dailyRecords.toLocaleString('en')} records for today (UTC): it sends again from midnight UTC`,
      };
    }
  },
  count: (token, bytes, origin, now) => countUse(token.id, { status: 200, records: 1, bytes, address: `webhook ${origin}` }, now),
};

/** The token's rate and quota refusing a send by hand, in the portal's words (429, Retry-After). */
const spent = (error: V1Error) =>
  new AppError({
    code: 'QUOTA_SPENT',
    message: `Not sent: ${error.message.replace(/^This token/, 'its token')}`,
    retryAfterSeconds: error.retryAfterSeconds,
  });

/** One request of the token's rate for a send by hand (a test, a resend); 429 QUOTA_SPENT past it, counted as refused. */
export async function chargeRequest(token: ApiToken, now = Date.now()): Promise<void> {
  try {
    await takeRequest(token);
  } catch (error) {
    if (!(error instanceof V1Error)) throw error;
    countUse(token.id, { status: 429, records: 0, bytes: 0, address: null }, now);
    throw spent(error);
  }
}

/** One record of today's quota for an event resent by hand: settled once the receiver answered; 429 when none is left. */
export async function chargeRecord(token: ApiToken, now = Date.now()): Promise<(accepted: boolean) => Promise<void>> {
  try {
    const { settle } = await reserveRecords(token, 1, now);
    return (accepted) => settle(accepted ? 1 : 0);
  } catch (error) {
    if (!(error instanceof V1Error)) throw error;
    countUse(token.id, { status: 429, records: 0, bytes: 0, address: null }, now);
    throw spent(error);
  }
}

/** Refuses a resend from an event on while the token has no record left today: the sender would only wait. */
export async function mustHaveRecords(token: ApiToken, now = Date.now()): Promise<void> {
  const settle = await chargeRecord(token, now);
  await settle(false);
}
