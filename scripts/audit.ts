import { closeStore, getStore } from '../lib/store';
import { pruneAudit, verifyAudit } from '../lib/store/audit';
import { auditRetentionDays } from '../lib/config';

/**
 * `npm run audit -- verify`: walks the audit trail's hash chain; exits 1 naming the first entry that does
 * not fit (changed, removed, or not following the one before). `npm run audit -- head`: the latest entry's
 * hash, to note somewhere the database's writers cannot reach. `npm run audit -- prune`: removes entries
 * older than AUDIT_RETENTION_DAYS (400), keeping the chain verifiable (the portal also does this hourly).
 */

const command = process.argv[2];
const exit = async (code: number) => {
  await closeStore();
  process.exit(code);
};

try {
  const { db, target } = await getStore({ attempts: 3, log: (line) => console.error(line) });
  if (command === 'verify' || command === 'head') {
    const verdict = await verifyAudit(db);
    if (!verdict.ok) {
      console.error(`audit trail in ${target.label}: entry ${verdict.seq} does not fit: ${verdict.problem}`);
      await exit(1);
    } else if (command === 'head') console.log(verdict.head);
    else console.log(`audit trail in ${target.label}: ${verdict.entries} entries, chain intact; head ${verdict.head}`);
  } else if (command === 'prune') {
    const days = auditRetentionDays();
    const removed = await pruneAudit(db, new Date(Date.now() - days * 86_400_000).toISOString());
    console.log(`removed ${removed} entries older than ${days} days; the chain stays verifiable from the last one removed`);
  } else {
    console.error('usage: npm run audit -- verify|head|prune');
    await exit(2);
  }
  await exit(0);
} catch (error) {
  console.error((error as Error).message);
  await exit(1);
}
