import type { Licence } from '../picks-api/portal';
import { newAttestor, type Attestor, type FileProof } from './attest';

/** A file's proof while it is written: its records checked as each page passes, the pages' times (lib/proof/attest.ts). */

export interface ProofInProgress {
  attestor: Attestor;
  filtersResolved: Record<string, string>;
  firstPage: string | null;
  lastPage: string | null;
}

export function startProof(licence: Licence | null, filtersResolved: Record<string, unknown>): ProofInProgress {
  const resolved = Object.fromEntries(
    Object.entries(filtersResolved)
      .filter(([, value]) => value !== undefined && value !== null && value !== '')
      .map(([key, value]) => [key, String(value)]),
  );
  return { attestor: newAttestor(licence), filtersResolved: resolved, firstPage: null, lastPage: null };
}

/** One upstream page read: its records checked, its time noted. */
export function notePage(proof: ProofInProgress, records: readonly unknown[], encoding: 'latin1' | 'utf8', at = new Date()): void {
  proof.attestor.see(records, encoding);
  proof.firstPage ??= at.toISOString();
  proof.lastPage = at.toISOString();
}

export function finishProof(proof: ProofInProgress): FileProof {
  return {
    recordIds: proof.attestor.recordIds(),
    filtersResolved: proof.filtersResolved,
    dataAsOf: { firstPage: proof.firstPage, lastPage: proof.lastPage },
    licence: proof.attestor.attestation(),
  };
}
