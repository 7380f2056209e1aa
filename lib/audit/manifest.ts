import 'server-only';
import type { FileProof } from '../proof/attest';
import type { AuditEntry } from '../store/audit';

/**
 * An export's manifest, for whoever receives the file: what was asked (filters), what was sent (records,
 * bytes, sha256 of exactly those bytes), under which licence, when, and how it ended. Taken from the audit
 * trail entry (its hash included, so it can be checked against the trail). Editors see their own; admins any.
 * Served as canonical JSON (RFC 8785) with a JWS over exactly those bytes (lib/proof/signer.ts): fields from
 * the proof (record ids, resolved filters, data as of, licence attestation) are null for exports from before it.
 */

export const MANIFEST_VERSION = 2;
/** The `typ` of a manifest's JWS header. */
export const MANIFEST_TYPE = 'picks-manifest+json';

export interface Manifest {
  manifestVersion: number;
  id: number;
  kind: 'picks' | 'results' | 'changes' | 'audit' | 'history' | 'corrections';
  file: string | null;
  filters: Record<string, string>;
  outcome: string;
  errorCode: string | null;
  records: number | null;
  bytes: number | null;
  sha256: string | null;
  licence: string | null;
  exportedBy: string;
  startedAt: string;
  endedAt: string;
  upstreamRequestIds: string[];
  /** What the walk saw while the upstream moved (duplicates dropped, later passes and what they added); null when nothing did. */
  walk: AuditEntry['walk'];
  auditHash: string;
  /** The audit entry that recorded this export. */
  audit: { seq: number; hash: string };
  /** Who asked: a person (email and role) or a delivery. */
  requestedBy: { user: string; role: string | null };
  recordIds: FileProof['recordIds'] | null;
  filtersResolved: FileProof['filtersResolved'] | null;
  dataAsOf: FileProof['dataAsOf'] | null;
  licenceAttestation: FileProof['licence'] | null;
}

const KINDS: Record<string, Manifest['kind']> = {
  'export.picks': 'picks',
  'export.results': 'results',
  'export.changes': 'changes',
  'export.audit': 'audit',
  'export.history': 'history',
  'export.corrections': 'corrections',
};

export function toManifest(entry: AuditEntry): Manifest {
  return {
    manifestVersion: MANIFEST_VERSION,
    id: entry.seq,
    kind: KINDS[entry.action] ?? 'picks',
    file: entry.target,
    filters: entry.filters ?? {},
    outcome: entry.outcome,
    errorCode: entry.errorCode,
    records: entry.records,
    bytes: entry.bytes,
    sha256: entry.sha256,
    licence: entry.licence,
    exportedBy: entry.actor,
    startedAt: new Date(Date.parse(entry.at) - (entry.durationMs ?? 0)).toISOString(),
    endedAt: entry.at,
    upstreamRequestIds: entry.requestIds,
    walk: entry.walk,
    auditHash: entry.hash,
    audit: { seq: entry.seq, hash: entry.hash },
    requestedBy: { user: entry.actor, role: entry.role },
    recordIds: entry.proof?.recordIds ?? null,
    filtersResolved: entry.proof?.filtersResolved ?? null,
    dataAsOf: entry.proof?.dataAsOf ?? null,
    licenceAttestation: entry.proof?.licence ?? null,
  };
}
