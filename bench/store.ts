import 'server-only';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DUMMY_HASH, verifyPassword } from '../lib/auth/passwords';
import { isSessionRevoked, revokeSession } from '../lib/auth/revocation';
import { checkSignIn, recordSignInSuccess, resetSignInLimits } from '../lib/auth/sign-in-limits';
import { addUser, findUser, recordSignIn } from '../lib/auth/users';
import { closeStore } from '../lib/store';
import { startPostgres } from '../tests/support/postgres';
import { median, percentile } from './support';
import { benchOptions, writeResult } from './options';

/**
 * `npm run bench:store`: what the store adds to each page and each sign-in, on the embedded database and
 * on PostgreSQL (Debian's, started here on loopback), through the portal's own functions:
 * - a page: the revocation check of its session (the account itself is re-read once per 10 s per account);
 * - a sign-in: the limits checked, the account read, the counts cleared and the sign-in time written,
 *   beside the scrypt check every sign-in pays anyway.
 * Medians over --rounds (2,000) rounds, in one run.
 */

const options = benchOptions('bench:store', "The store's cost per page and per sign-in, on both engines.", {
  rounds: { default: 2_000, help: 'rounds of each measurement (medians)' },
});
const ROUNDS = options.rounds;
// The session checks read the portal's whole configuration (the grace period), which needs an upstream; none is asked.
process.env.PICKS_API_BASE_URL ??= 'http://127.0.0.1:9';
process.env.PICKS_API_KEY ??= 'bench-store-key';
const us = (ms: number) => Math.round(ms * 1000);

async function time(rounds: number, work: (i: number) => Promise<unknown>) {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const start = performance.now();
    await work(i);
    samples.push(performance.now() - start);
  }
  return { p50: median(samples), p95: percentile(samples, 95) };
}

async function measure(label: string, env: Record<string, string>) {
  await closeStore();
  Object.assign(process.env, env);
  await resetSignInLimits();
  const user = await addUser('bench-store@example.com', 'editor', 'bench-store-password');
  await revokeSession('some-ended-session', Date.now() + 3_600_000);
  const page = await time(ROUNDS, (i) => isSessionRevoked(`session-${i}`));
  const accountRead = await time(ROUNDS, () => findUser(user.email));
  const signIn = await time(Math.min(ROUNDS, 500), async () => {
    await checkSignIn(user.email, '198.51.100.7');
    await findUser(user.email);
    await Promise.all([recordSignInSuccess(user.email), recordSignIn(user.email)]);
  });
  console.log(
    `[bench] store, ${label}: per page ${us(page.p50)} µs (p95 ${us(page.p95)}), account re-read ${us(accountRead.p50)} µs (once per 10 s per account), per sign-in ${us(signIn.p50)} µs (p95 ${us(signIn.p95)})`,
  );
  return {
    label,
    pageUs: us(page.p50),
    pageP95Us: us(page.p95),
    accountReadUs: us(accountRead.p50),
    signInUs: us(signIn.p50),
    signInP95Us: us(signIn.p95),
  };
}

const rows = [];
const scrypt = await time(20, () => verifyPassword('bench-store-password', DUMMY_HASH));
const dir = mkdtempSync(path.join(tmpdir(), 'bench-store-'));
rows.push(await measure('embedded (SQLite)', { DATABASE_URL: '', PORTAL_DATA_DIR: dir, PORTAL_USERS_FILE: path.join(dir, 'none.json') }));
const pg = await startPostgres();
if (pg) {
  try {
    rows.push(await measure('PostgreSQL (loopback)', { DATABASE_URL: await pg.createDatabase('bench_store') }));
  } finally {
    await closeStore();
    pg.destroy();
  }
} else console.log('[bench] store, PostgreSQL: SKIPPED (apt-get install -y postgresql)');
await closeStore();
console.log(`[bench] for scale: one scrypt password check (every sign-in) takes ${Math.round(scrypt.p50)} ms`);
await writeResult('store', { scryptMs: scrypt.p50, rows });
