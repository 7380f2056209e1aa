import { parseArgs } from 'node:util';
import { recordAudit } from '../lib/audit/record';
import { rebuildIndex } from '../lib/records/index-keeper';
import { walkWholeSet } from '../lib/records/index-walk';
import { closeStore, getStore } from '../lib/store';
import { indexSize } from '../lib/store/record-index';

/**
 * `npm run index -- rebuild [--walk]`: builds the index of the licensed set (docs/search.md) again from the record
 * history; with `--walk`, first reads the whole licensed set from the upstream (the partner key, as the change
 * feed does) into the history, so the index holds every record the licence delivers, not only what the feed and the
 * files have seen. Recorded in the audit trail (`index.rebuild`, by `cli`). A portal may run meanwhile.
 */

const usage = 'usage: npm run index -- rebuild [--walk]';
const { positionals, values } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: { walk: { type: 'boolean' } } });
if (positionals.length !== 1 || positionals[0] !== 'rebuild') {
  console.error(usage);
  process.exit(2);
}

const started = Date.now();
try {
  const { db } = await getStore({ attempts: 3, log: (line) => console.error(line) });
  if (values.walk) {
    const walked = await walkWholeSet(db);
    console.log(`read ${walked.toLocaleString('en')} records of the licensed set into the record history`);
  }
  const kept = await rebuildIndex(db);
  const size = await indexSize(db);
  console.log(
    `the index of the licensed set holds ${size.toLocaleString('en')} records (${kept.put.toLocaleString('en')} put) in ${Math.round((Date.now() - started) / 100) / 10} s`,
  );
  await recordAudit({
    actor: 'cli',
    action: 'index.rebuild',
    target: 'the index of the licensed set',
    filters: { walk: values.walk ? 'the whole licensed set from the upstream' : 'the record history only' },
    records: size,
    durationMs: Date.now() - started,
    outcome: 'complete',
  });
} catch (error) {
  console.error(`index rebuild failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await closeStore();
}
