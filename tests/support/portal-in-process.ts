import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Store } from '@/lib/store/open';
import type { ApiToken } from '@/lib/store/tokens';
import type { TokenScope } from '@/lib/vocabulary/tokens';

/**
 * For contract tests that call the portal's handlers in this process, against a sandbox over real HTTP: the
 * portal's configuration (the sandbox as upstream, a fresh data directory, the embedded store) and its store; a
 * poll of the change feed as the portal's feed makes it; an API token in the store, with its secret.
 */

export async function portalInProcess(baseUrl: string, key: string, extra: Record<string, string> = {}): Promise<Store> {
  const dir = await mkdtemp(path.join(tmpdir(), 'portal-in-process-'));
  Object.assign(process.env, {
    PICKS_API_BASE_URL: baseUrl,
    PICKS_API_KEY: key,
    AUTH_SECRET: 'x'.repeat(40),
    PORTAL_DATA_DIR: dir,
    DATABASE_URL: '',
    PORTAL_USERS_FILE: path.join(dir, 'users.json'),
    PORTAL_SANDBOX: '',
    ...extra,
  });
  const { closeStore, getStore } = await import('@/lib/store');
  await closeStore();
  return getStore();
}

/** One poll of the change feed (its lease taken first), then the index of the licensed set brought up to date. */
export async function pollSandbox(store: Store, baseUrl: string, key: string, now: () => number): Promise<void> {
  const { claimFeedLease } = await import('@/lib/store/change-feed');
  const { pollOnce } = await import('@/lib/changes/poller');
  const { createPicksClient } = await import('@/lib/picks-api/client');
  const { keepIndex } = await import('@/lib/records/index-keeper');
  await claimFeedLease(store.db, 'a', 30 * 86_400_000, now());
  await pollOnce({
    db: store.db,
    walk: (f, call) => createPicksClient({ baseUrl, apiKey: key, retry: { maxRetries: 0 } }).walkPicks(f, call),
    instance: 'a',
    settings: { daysBack: 7, daysAhead: 14, pollMs: 300_000 },
    now,
  });
  await keepIndex(store.db);
}

let made = 0;

/** An API token of `owner` in the store, and the secret a consumer sends. */
export async function testToken(
  store: Store,
  owner: string,
  settings: { scope?: Partial<TokenScope>; ratePerMinute?: number; dailyRecords?: number } = {},
): Promise<{ token: ApiToken; secret: string }> {
  const { insertToken } = await import('@/lib/store/tokens');
  const { newToken } = await import('@/lib/tokens/access');
  const now = Date.now();
  made += 1;
  const secret = newToken();
  const token: ApiToken = {
    id: `tok_${String(made).padStart(12, '0')}`,
    name: `test ${made}`,
    owner,
    ownerSinceMs: now,
    prefix: secret.prefix,
    scope: { content: ['picks', 'results', 'changes'], sports: [], leagues: [], from: null, to: null, ...settings.scope },
    expiresMs: now + 86_400_000,
    ratePerMinute: settings.ratePerMinute ?? 600,
    dailyRecords: settings.dailyRecords ?? 1_000_000,
    createdMs: now,
    createdBy: owner,
    updatedMs: now,
    revokedMs: null,
    revokedBy: null,
  };
  await insertToken(store.db, token, secret.hash);
  return { token, secret: secret.token };
}
