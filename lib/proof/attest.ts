import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { idsDigest as verifierIdsDigest } from '@/public/verify-picks-file.mjs';
import type { LicenceSummary } from '../vocabulary/licence';

/**
 * A file's licence attestation and record-id digest, made while the walk writes it. Pure: no I/O.
 *
 * The attestation names the /me document in force when the walk started (the sha256 of its canonical JSON,
 * RFC 8785), the licensed scope read from it, and every record checked against that scope: per dimension
 * `inside`, `outside` (with how many), or `unknown` when /me does not state it — content mode and channel
 * are stated by /me but not by records, so they are `unknown` per record whatever /me says. A record
 * outside is still delivered as the upstream sent it; the attestation says so.
 *
 * Records may arrive as byte strings (lib/picks-api/byte-strings.ts): each page says which, and names are
 * compared in the page's own form, so nothing is decoded for this.
 */

import type { DimensionCheck, LicenceAttestation, RecordIdsDigest, Dimension } from '../vocabulary/proof';

export type { DimensionCheck, LicenceAttestation, RecordIdsDigest, ScopeState, Dimension, FileProof } from '../vocabulary/proof';

type Encoding = 'latin1' | 'utf8';
type RecordLike = Record<string, unknown>;
const FIRST_IDS = 10;
const NOT_STATED = 'the licence (/me) does not state it';
const NOT_ON_RECORDS = 'records do not carry it (spec §2), so no record can be checked against it';

const fold = (value: string) => value.trim().toLowerCase();
/** A name as a byte string: how it reads in a page read with one character per byte. */
const asBytes = (value: string) => Buffer.from(value, 'utf8').toString('latin1');
/** An ASCII string is its own byte string (most ids): no buffer made for it. */
const ASCII = /^[\x00-\x7f]*$/;

/** The end of a licence window: a date without a time includes its whole day. */
function windowEnd(to: string): number {
  const at = Date.parse(to);
  return /^\d{4}-\d{2}-\d{2}$/.test(to.trim()) ? at + 86_400_000 : at;
}

export interface Attestor {
  /** One page's records, in the page's encoding. */
  see(records: readonly unknown[], encoding: Encoding): void;
  attestation(): LicenceAttestation;
  recordIds(): RecordIdsDigest;
}

export function meDigest(me: unknown): string {
  return createHash('sha256')
    .update(canonicalize(me) ?? '')
    .digest('hex');
}

/** Checks records against the licence read from /me (null: /me could not be read, so everything is unknown). */
export function newAttestor(licence: { summary: LicenceSummary; document: unknown; readAt: string } | null): Attestor {
  const summary = licence?.summary ?? null;
  // Names as /me gives them (most records match one exactly: no string is made for them), and folded for the rest.
  const sets = (list: string[] | null | undefined) =>
    list
      ? {
          exact: { utf8: new Set(list), latin1: new Set(list.map(asBytes)) },
          utf8: new Set(list.map(fold)),
          latin1: new Set(list.map((v) => fold(asBytes(v)))),
        }
      : null;
  const sports = sets(summary?.sports);
  const leagues = sets(summary?.leagues);
  const from = summary?.from ? Date.parse(summary.from) : null;
  const to = summary?.to ? windowEnd(summary.to) : null;
  const dated = (from !== null && !Number.isNaN(from)) || (to !== null && !Number.isNaN(to));
  const outsideBy: Record<'sports' | 'leagues' | 'dates', number> = { sports: 0, leagues: 0, dates: 0 };
  const ids: string[] = [];
  const firstOutside: string[] = [];
  let outsideCount = 0;

  const named = (set: ReturnType<typeof sets>, value: unknown, encoding: Encoding) =>
    typeof value === 'string' && (set!.exact[encoding].has(value) || set![encoding].has(fold(value)));
  const inWindow = (value: unknown) => {
    const at = typeof value === 'string' ? Date.parse(value) : NaN;
    if (Number.isNaN(at)) return false;
    return (from === null || Number.isNaN(from) || at >= from) && (to === null || Number.isNaN(to) || at < to);
  };

  return {
    see(records, encoding) {
      for (const item of records) {
        const record = item as RecordLike;
        const id = typeof record.id === 'string' ? record.id : String(record.id);
        ids.push(encoding === 'latin1' || ASCII.test(id) ? id : asBytes(id));
        const offSport = sports !== null && !named(sports, record.sport, encoding);
        const offLeague = leagues !== null && !named(leagues, record.league, encoding);
        const offDates = dated && !inWindow(record.eventDate);
        if (offSport) outsideBy.sports += 1;
        if (offLeague) outsideBy.leagues += 1;
        if (offDates) outsideBy.dates += 1;
        const outside = offSport || offLeague || offDates;
        if (outside) {
          outsideCount += 1;
          if (firstOutside.length < FIRST_IDS) firstOutside.push(encoding === 'latin1' ? Buffer.from(id, 'latin1').toString('utf8') : id);
        }
      }
    },
    attestation() {
      const check = (stated: boolean, outside: number): DimensionCheck =>
        stated ? { state: outside ? 'outside' : 'inside', outside } : { state: 'unknown', outside: 0, reason: NOT_STATED };
      const unchecked = (stated: boolean): DimensionCheck => ({
        state: 'unknown',
        outside: 0,
        reason: stated ? NOT_ON_RECORDS : NOT_STATED,
      });
      const checks: Record<Dimension, DimensionCheck> = {
        sports: check(sports !== null, outsideBy.sports),
        leagues: check(leagues !== null, outsideBy.leagues),
        dates: check(dated, outsideBy.dates),
        contentMode: unchecked(Boolean(summary?.contentMode)),
        channels: unchecked(Boolean(summary?.channels?.length)),
      };
      // Inside when every dimension a record can be checked on, and /me states, holds: content mode and channel never can.
      const checked = [checks.sports, checks.leagues, checks.dates].some((c) => c.state === 'inside');
      return {
        meSha256: licence ? meDigest(licence.document) : null,
        meReadAt: licence?.readAt ?? null,
        licenceId: summary?.licenceId ?? null,
        scope: summary
          ? {
              sports: summary.sports,
              leagues: summary.leagues,
              from: summary.from,
              to: summary.to,
              contentMode: summary.contentMode,
              channels: summary.channels,
            }
          : null,
        checks,
        result: outsideCount > 0 ? 'outside' : checked ? 'inside' : 'unknown',
        outside: { count: outsideCount, firstIds: firstOutside },
      };
    },
    recordIds: () => idsDigest(ids),
  };
}

/** The digest of ids given as byte strings: the verifier's own (public/verify-picks-file.mjs), so both sides hash alike. */
export const idsDigest: (byteStringIds: string[]) => RecordIdsDigest = verifierIdsDigest;
