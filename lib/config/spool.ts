import path from 'node:path';

/** Where delivery runs spool their files, and exports and runs what they delivered (lib/history/capture.ts): DELIVERY_SPOOL_DIR, or `spool` in the data directory. */
export function spoolDirOf(config: { DELIVERY_SPOOL_DIR?: string; PORTAL_DATA_DIR: string }): string {
  return path.resolve(/*turbopackIgnore: true*/ config.DELIVERY_SPOOL_DIR ?? `${config.PORTAL_DATA_DIR}/spool`);
}
