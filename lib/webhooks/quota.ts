import 'server-only';
import type { ApiToken } from '../store/tokens';
import { reserveRecords } from '../tokens/limits';
import { countUse } from '../tokens/usage';
import { V1Error } from '../tokens/v1-errors';

/**
 * A consumer webhook's events are its token's reads: each event sent is one record of the token's daily quota
 * (taken before it is sent, given back when it was not accepted) and one use in its history, like an event of the
 * stream. A token over today's quota sends nothing more until midnight UTC: its webhooks wait, and say so.
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
