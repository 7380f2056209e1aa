import type { LicenceSummary } from './licence';

/** What a file's proof says (lib/proof/attest.ts makes it; the store keeps it with the audit entry). */

export type ScopeState = 'inside' | 'outside' | 'unknown';
export type Dimension = 'sports' | 'leagues' | 'dates' | 'contentMode' | 'channels';
export interface DimensionCheck {
  state: ScopeState;
  /** Records outside on this dimension. */
  outside: number;
  reason?: string;
}

export interface LicenceAttestation {
  /** sha256 of /me as canonical JSON; null when /me could not be read. */
  meSha256: string | null;
  meReadAt: string | null;
  licenceId: string | null;
  scope: Pick<LicenceSummary, 'sports' | 'leagues' | 'from' | 'to' | 'contentMode' | 'channels'> | null;
  checks: Record<Dimension, DimensionCheck>;
  result: ScopeState;
  outside: { count: number; firstIds: string[] };
}

export interface RecordIdsDigest {
  count: number;
  /** sha256 of the ids sorted by their UTF-8 bytes, each followed by a newline. */
  sha256: string;
}

/** What an export's or delivery run's audit entry keeps of its file, for its manifest (lib/audit/manifest.ts). */
export interface FileProof {
  recordIds: RecordIdsDigest;
  /** The filters the upstream was asked with (relative dates resolved, defaults filled in). */
  filtersResolved: Record<string, string>;
  /** When the first and the last upstream page were read: the data is "as of" that span. */
  dataAsOf: { firstPage: string | null; lastPage: string | null };
  licence: LicenceAttestation;
}
