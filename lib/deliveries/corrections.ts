import 'server-only';
import type { Kysely } from 'kysely';
import { openDeliveredFile, recordDelivered, updateDeliveredFile } from '../store/delivered';
import type { Delivery } from '../store/deliveries';
import type { Database } from '../store/schema';
import type { Produced } from './produce';

/** Automatic corrections (lib/history/corrections.ts makes the file): what a placed one changes in the store. */

type Corrected = NonNullable<Produced['corrected']>;

/** The runs a correction corrects, with how many of each one's records. */
export function correctsOf(corrected: Corrected): { run: string; records: number }[] {
  const counts = new Map<string, number>();
  for (const c of corrected) counts.set(c.corrects, (counts.get(c.corrects) ?? 0) + 1);
  return [...counts].map(([run, records]) => ({ run, records }));
}

/** A placed correction: its records are what the destination holds now, and the run is reconcilable like any other. */
export async function keepCorrection(db: Kysely<Database>, delivery: Delivery, runId: string, corrected: Corrected): Promise<void> {
  const at = Date.now();
  await openDeliveredFile(db, { id: runId, kind: 'run', actor: `delivery:${delivery.name}`, deliveryId: delivery.id, atMs: at });
  await recordDelivered(db, runId, corrected, at, delivery.id);
  await updateDeliveredFile(db, runId, { kept: 'kept', records: corrected.filter((c) => c.digest !== '').length });
}
