import type { Kysely } from 'kysely';
import { checkJws, type Jwk } from '@/public/verify-picks-file.mjs';
import { listCheckpoints } from '../store/checkpoints';
import type { Database } from '../store/schema';
import { digestOf, SEALED_TABLE_NAMES, sealedRows, sealOfTable, type SealedTable } from '../store/sealed-tables';
import { CHECKPOINT_TYPE, type CheckpointPayload } from './checkpoints';

/**
 * Checks the tables that decide who may act and where data goes (lib/store/sealed-tables.ts) against the newest
 * checkpoint of the database whose signature holds with the keys given: each table's digest must be the one it
 * signed. A table that differs is named with the rows that differ (added, changed, removed), read from the row
 * hashes kept with that checkpoint when its signed digest vouches for them. What no signed checkpoint covers is
 * said, table by table, as not checked.
 */

export interface TablesVerdict {
  problems: string[];
  notes: string[];
  /** The tables found as the checkpoint sealed them. */
  vouched: SealedTable[];
}

const listed = (keys: string[]) => (keys.length > 5 ? `${keys.slice(0, 5).join(', ')} and ${keys.length - 5} more` : keys.join(', '));

export async function verifyTables(db: Kysely<Database>, keys: Jwk[]): Promise<TablesVerdict> {
  const problems: string[] = [];
  const vouched: SealedTable[] = [];
  let newest: CheckpointPayload | null = null;
  for (const checkpoint of (await listCheckpoints(db)).reverse()) {
    try {
      newest = JSON.parse(checkJws(checkpoint.jws, keys, CHECKPOINT_TYPE).payload.toString('utf8')) as CheckpointPayload;
      break;
    } catch {
      // A checkpoint that does not verify is named by verify-sealed.ts; the next older one may seal the tables.
    }
  }
  const sealed = newest?.tables;
  const unchecked = SEALED_TABLE_NAMES.filter((table) => !sealed?.[table]);
  const notes =
    unchecked.length === 0
      ? []
      : [
          `not vouched for: ${unchecked.join(', ')} (${newest ? `checkpoint ${newest.id}, its newest, was made before the portal sealed them` : 'no signed checkpoint in it'}): who may act and where data goes in them are as the file says`,
        ];
  if (!newest || !sealed) return { problems, notes, vouched };
  const kept = await sealedRows(db);
  for (const table of SEALED_TABLE_NAMES.filter((t) => sealed[t])) {
    const now = await sealOfTable(db, table);
    if (now.digest === sealed[table]) {
      vouched.push(table);
      continue;
    }
    const rows = kept.get(table) ?? [];
    if (digestOf(rows) !== sealed[table]) {
      problems.push(
        `table ${table} is not what checkpoint ${newest.id} sealed (the rows it sealed were changed too: which rows differ cannot be told)`,
      );
      continue;
    }
    const then = new Map(rows);
    const found = new Map(now.rows);
    const changed = now.rows.filter(([key, hash]) => then.has(key) && then.get(key) !== hash).map(([key]) => key);
    const added = now.rows.filter(([key]) => !then.has(key)).map(([key]) => key);
    const removed = rows.filter(([key]) => !found.has(key)).map(([key]) => key);
    const parts = [
      changed.length ? `changed: ${listed(changed)}` : '',
      added.length ? `added: ${listed(added)}` : '',
      removed.length ? `removed: ${listed(removed)}` : '',
    ].filter(Boolean);
    problems.push(`table ${table} is not what checkpoint ${newest.id} sealed (${parts.join('; ')})`);
  }
  if (vouched.length > 0) notes.push(`vouched for by checkpoint ${newest.id}: ${vouched.join(', ')}`);
  return { problems, notes, vouched };
}
