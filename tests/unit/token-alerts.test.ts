import { afterEach, describe, expect, it } from 'vitest';
import { messageFor } from '@/lib/alerts';
import { checkTokens } from '@/lib/alerts/token-check';
import { alertsIn } from '@/lib/store/alerts';
import { addUsage, insertToken, revokeToken, type ApiToken } from '@/lib/store/tokens';
import { openStore, type Store } from '@/lib/store/open';
import { storeEngines } from '../support/store-engines';

/** Alerts about API tokens, both engines: over quota, expiring within 7 days, unused for 30 days — each once. */

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-20T12:00:00Z');
const token = (id: string, over: Partial<ApiToken> = {}): ApiToken => ({
  id,
  name: `consumer ${id.slice(-1)}`,
  owner: 'admin@example.com',
  ownerSinceMs: NOW - DAY,
  prefix: 'pvt_abcdef',
  scope: { content: ['picks'], sports: [], leagues: [], from: null, to: null },
  expiresMs: NOW + 60 * DAY,
  ratePerMinute: 60,
  dailyRecords: 1_000,
  createdMs: NOW - DAY,
  createdBy: 'admin@example.com',
  updatedMs: NOW - DAY,
  revokedMs: null,
  revokedBy: null,
  ...over,
});
const used = (records: number, lastMs: number) => ({
  requests: 3,
  records,
  bytes: 1,
  clientErrors: 0,
  throttled: 0,
  lastMs,
  lastAddress: null,
});

describe.each(storeEngines())('API token alerts on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it('raises each once however often or by however many instances it is checked, and only for live tokens', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const { db } = store;
    await insertToken(db, token('tok_00000000000a'), 'h-a'); // at its quota today
    await addUsage(db, 'tok_00000000000a', '2026-11-20', used(1_000, NOW - 60_000));
    await insertToken(db, token('tok_00000000000b', { expiresMs: NOW + 3 * DAY }), 'h-b'); // expiring
    await addUsage(db, 'tok_00000000000b', '2026-11-20', used(10, NOW - 60_000));
    await insertToken(db, token('tok_00000000000c', { createdMs: NOW - 40 * DAY }), 'h-c'); // never used in 40 days
    await insertToken(db, token('tok_00000000000d'), 'h-d'); // fine: used yesterday, under quota
    await addUsage(db, 'tok_00000000000d', '2026-11-19', used(999, NOW - DAY));
    await insertToken(db, token('tok_00000000000e', { createdMs: NOW - 40 * DAY }), 'h-e');
    await revokeToken(db, 'tok_00000000000e', 'admin@example.com', NOW - DAY); // revoked: nothing to say

    await checkTokens(db, NOW);
    await checkTokens(db, NOW + 1_000); // a second instance a moment later
    const held = await alertsIn(db, 'held');
    expect(held.map((a) => [a.kind, a.sport]).sort()).toEqual([
      ['token.expiring', 'token consumer b (tok_00000000000b)'],
      ['token.quota', 'token consumer a (tok_00000000000a)'],
      ['token.unused', 'token consumer c (tok_00000000000c)'],
    ]);
    expect(held.find((a) => a.kind === 'token.unused')!.reason).toMatch(/^Never used since 2026-10-11/);
    // The next day over quota again is another alert.
    await addUsage(db, 'tok_00000000000a', '2026-11-21', used(1_000, NOW + DAY));
    await checkTokens(db, NOW + DAY);
    expect((await alertsIn(db, 'held')).filter((a) => a.kind === 'token.quota')).toHaveLength(2);

    const message = messageFor(
      held.filter((a) => a.kind === 'token.quota'),
      ['admin@example.com'],
      'https://portal.example',
    );
    expect(message.subject).toBe('[Picks portal] token consumer a (tok_00000000000a) over its daily quota');
    expect(message.text).toContain('See https://portal.example/tokens');
  });
});

describe('a token name in chat and email', () => {
  it('is shown as written in a chat payload: no mention, no link, no markup', async () => {
    const { webhookBody } = await import('@/lib/alerts/webhooks');
    const alert = {
      id: `${NOW}:token.quota:token <!channel> <https://evil.example|click> & co (tok_00000000000a)`,
      kind: 'token.quota',
      sport: 'token <!channel> <https://evil.example|click> & co (tok_00000000000a)',
      state: 'over quota',
      side: null,
      reason: 'Read its quota',
      detail: null,
      createdMs: NOW,
      dueMs: NOW,
      status: 'pending' as const,
      attempts: 0,
      nextMs: null,
      error: null,
      sentMs: null,
      recipients: [],
    };
    const hook = { format: 'chat' } as Parameters<typeof webhookBody>[0];
    const { text } = JSON.parse(webhookBody(hook, [alert], 'https://portal.example', NOW)) as { text: string };
    expect(text).toContain('token &lt;!channel&gt; &lt;https://evil.example|click&gt; &amp; co (tok_00000000000a)');
    expect(text).not.toMatch(/<!channel>|<https:/);
  });
});
