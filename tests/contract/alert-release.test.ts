import type { Kysely, KyselyPlugin, QueryId } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queueHealthAlerts } from '@/lib/alerts';
import { dispatchAlerts } from '@/lib/alerts/dispatch';
import { alertMailer } from '@/lib/alerts/mail';
import { recipientsOf } from '@/lib/alerts/subscriptions';
import { channelSender, checkWebhook } from '@/lib/alerts/webhooks';
import { listWebhooks, saveWebhook } from '@/lib/store/alert-channels';
import { latestStates, recordStates, type StateEntry } from '@/lib/store/feed-health';
import { openStore, type Store } from '@/lib/store/open';
import type { Database } from '@/lib/store/schema';
import { putUser } from '@/lib/store/users';
import { subjectOf, type Received } from '../support/smtp';
import { storeEngines } from '../support/store-engines';
import { startAlertChannels, type Hit } from '../support/webhook-receiver';

/**
 * Alerts of one kind that come due together go out together, even while another instance dispatches: seven
 * sports down at once are one webhook post and one email, not what one dispatcher had released so far (seen
 * under load with two portals on one PostgreSQL: `sport.down` posted as 5 alerts, then 2, in one second).
 * The first dispatcher is held still in the middle of its release or its claim (a Kysely plugin pauses it after
 * its nth update) while the second runs: two instances on one PostgreSQL. The embedded database is one process's
 * single connection, which the paused one keeps, so there the second runs after it: nothing splits there either.
 */

const T = Date.parse('2026-11-25T12:00:00Z');
const HOLD = 300_000;
const SPORTS = ['Athletics', 'Basketball', 'Cricket', 'Darts', 'Football', 'Golf', 'Tennis'];
const context = { secretKey: 'alert-release-test-key-0123456789abcdef', allowPrivate: true };

let posts: Hit[] = [];
let failing = false;
let base: string;
let inbox: Received[];
let smtpUrl: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ inbox, smtpUrl, hits: posts, base, close } = await startAlertChannels(() => (failing ? 503 : 200)));
});
afterAll(() => close());

/** A held alert moved on; a webhook send claimed. */
const MOVE = ['"alerts"', '"held"'];
const CLAIM = ['"alert_sends"', '"sending"'];

/** Holds a dispatcher after its `nth` update of `kind` until `until` settles (at most `maxMs`). */
function pauseAfter(kind: string[], nth: number, until: Promise<unknown>, maxMs: number, paused: () => void): KyselyPlugin {
  const moves = new WeakSet<QueryId>();
  let seen = 0;
  return {
    transformQuery({ node, queryId }) {
      const text = JSON.stringify(node);
      if (node.kind === 'UpdateQueryNode' && kind.every((word) => text.includes(word))) moves.add(queryId);
      return node;
    },
    async transformResult({ result, queryId }) {
      if (moves.has(queryId) && Number(result.numAffectedRows ?? 0) > 0 && (seen += 1) === nth) {
        paused();
        await Promise.race([until, new Promise((resolve) => setTimeout(resolve, maxMs))]);
      }
      return result;
    },
  };
}

describe.each(storeEngines())('a release of held alerts on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    posts.length = 0;
    inbox.length = 0;
    failing = false;
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  const dispatch = (db: Kysely<Database>, now: number) => {
    const send = alertMailer({ SMTP_URL: smtpUrl, ALERT_EMAIL_FROM: 'alerts@portal.example' });
    return dispatchAlerts(db, {
      now,
      recipients: (alert) => recipientsOf(db, alert),
      send,
      portalUrl: 'https://portal.example',
      webhooks: { list: () => listWebhooks(db), post: channelSender({ ...context, portalUrl: 'https://portal.example', send }) },
    });
  };

  /** Two dispatchers on one store (two instances on PostgreSQL), a webhook for `sport.down`, seven sports down at T. */
  async function sevenDown() {
    const target = await engine.fresh();
    const first = await openStore(target);
    // Two instances on one PostgreSQL; the embedded database is one process's, so one connection serves both.
    const second = engine.name === 'postgres' ? await openStore(target) : first;
    opened.push(...new Set([first, second]));
    await putUser(first.db, { email: 'boss@example.com', role: 'admin', passwordHash: 'scrypt$x' });
    const hook = await checkWebhook(
      { name: 'Ops', url: `${base}/ops`, format: 'chat', kinds: ['sport.down'] },
      null,
      'boss@example.com',
      context,
    );
    await saveWebhook(first.db, hook);
    const states = (state: StateEntry['state'], at: number): StateEntry[] =>
      SPORTS.map((sport) => ({ sport, state, side: state === 'healthy' ? null : 'upstream', reason: `${sport}: HTTP 503`, at }));
    await recordStates(first.db, states('healthy', T - HOLD));
    const previous = await latestStates(first.db);
    await recordStates(first.db, states('down', T));
    await queueHealthAlerts(first.db, states('down', T), previous, HOLD);
    return { first, second };
  }

  /** The first dispatcher at `now`, held after its `nth` update of `kind`; the second, at `now + skew`, runs meanwhile. */
  async function together(stores: { first: Store; second: Store }, kind: string[], nth: number, now: number, skew: number) {
    let paused!: () => void;
    const pausing = new Promise<void>((resolve) => (paused = resolve));
    let secondDone!: () => void;
    const secondOver = new Promise<void>((resolve) => (secondDone = resolve));
    const firstRun = dispatch(stores.first.db.withPlugin(pauseAfter(kind, nth, secondOver, 1_000, paused)), now);
    await Promise.race([pausing, firstRun]);
    const secondRun = dispatch(stores.second.db, now + skew).finally(secondDone);
    await Promise.all([firstRun, secondRun]);
  }

  const everySport = (text: string) => SPORTS.filter((sport) => text.includes(sport));
  const postedSports = () => posts.map((post) => everySport(post.body.toString()));

  // The second dispatcher's clock a millisecond behind (it releases nothing, only sends), or the same.
  it.each([
    ['a millisecond behind', -1],
    ['at the same moment', 0],
  ])('goes out as one post and one email while a second dispatcher runs %s', async (_, skew) => {
    const stores = await sevenDown();
    await together(stores, MOVE, 3, T + HOLD, skew);
    expect(postedSports()).toEqual([SPORTS]);
    expect(inbox).toHaveLength(1);
    expect(subjectOf(inbox[0]!)).toContain('down');
    expect(everySport(inbox[0]!.raw)).toEqual(SPORTS);
  });

  it('retries a failed post as one post while a second dispatcher claims the same sends', async () => {
    const stores = await sevenDown();
    failing = true;
    await dispatch(stores.first.db, T + HOLD);
    expect(postedSports()).toEqual([SPORTS]);
    failing = false;
    posts.length = 0;
    await together(stores, CLAIM, 1, T + HOLD + 60_000, 0);
    expect(postedSports()).toEqual([SPORTS]);
    expect(inbox).toHaveLength(1); // the email went out the first time
  });
});
