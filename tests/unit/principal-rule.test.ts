import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every way in goes through the one rule for who may act (lib/auth/principal.ts): each route handler, page,
 * server action and piece of background work is listed here by what it acts for, and a new one that is
 * not fails this test until it is placed. Read from the source, in the manner of the route guards of
 * tests/e2e/access.spec.ts, so a surface cannot forget the rule by being new.
 */

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
function files(dir: string, match: RegExp): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(path.join(root, file)).isDirectory() ? files(file, match) : match.test(name) ? [file] : [];
  });
}

/** Routes anyone may call: what they answer is public by design (docs/security.md). */
const PUBLIC_ROUTES: Record<string, string> = {
  'app/api/health/route.ts': 'load balancers: the store and upstream states only',
  'app/api/health/live/route.ts': 'liveness',
  'app/api/health/ready/route.ts': 'readiness',
  'app/api/proof/keys/route.ts': 'public keys, for recipients who verify files',
  'app/api/auth/[...nextauth]/route.ts': 'sign-in itself (next-auth), judged by the same rule in lib/auth/options.ts',
};
const PUBLIC_PAGES = ['app/login/page.tsx'];

/** Background work: what each loop acts for, and the file where that principal is judged. */
const JOBS: Record<string, { actsFor: string; judgedIn?: string }> = {
  'lib/deliveries/scheduler.ts': { actsFor: 'a delivery and its owner', judgedIn: 'lib/deliveries/run.ts' },
  'lib/deliveries/run.ts': { actsFor: 'a delivery and its owner (its lease)', judgedIn: 'lib/deliveries/run.ts' },
  'lib/alerts/start.ts': { actsFor: 'each alert recipient (emails, digests)', judgedIn: 'lib/alerts/subscriptions.ts' },
  'lib/walk-slots.ts': { actsFor: 'the request or run that holds the slot, judged when it began' },
  'lib/changes/poller.ts': { actsFor: 'the portal itself (the partner key): no person' },
  'lib/audit/sealing.ts': { actsFor: 'the portal itself: no person' },
  'lib/deliveries/spool-sweep.ts': { actsFor: 'the portal itself: no person' },
  'lib/jobs/pruning.ts': { actsFor: 'the portal itself: no person' },
  'lib/records/index-keeper.ts': { actsFor: 'the portal itself: it indexes what the history holds, for no one' },
  'lib/records/index-walk.ts': { actsFor: 'the portal itself (the partner key): no person' },
  'lib/jobs/renewals.ts': { actsFor: 'the work whose leases it renews, judged when that work began' },
  'lib/jobs/store-retry.ts': { actsFor: 'the work that kept the write, judged when that work began' },
  'lib/picks-api/shared-pause.ts': { actsFor: 'the portal itself: no person' },
  'lib/events/checkpoints.ts': { actsFor: 'the portal itself: it signs what it gave each token, for no one' },
  'lib/webhooks/start.ts': { actsFor: 'each webhook’s token and its owner, judged at every pass', judgedIn: 'lib/webhooks/worker.ts' },
  'lib/events/tail.ts': { actsFor: 'the portal itself; each stream it wakes judges its token every 5 s', judgedIn: 'lib/tokens/access.ts' },
};
const ASKS = /\b(mayAct|mayActIn|standing)\(/;

/**
 * Commands: run by an operator on the portal's machine, who holds the store and the keys (the `cli` actor of
 * the audit trail). None acts for a person; one that changes a person's account lets the rule see the change.
 */
const COMMANDS: Record<string, { actsFor: string; asks?: RegExp }> = {
  'scripts/users.ts': {
    actsFor: 'the operator; a change to an account suspends or resumes the tokens acting for it',
    asks: /ownerChange\(/,
  },
  'scripts/export.ts': { actsFor: 'the operator (the partner key, as scheduled jobs do)' },
  'scripts/audit.ts': { actsFor: 'the operator (checks and seals the audit trail)' },
  'scripts/proof.ts': { actsFor: 'the operator (keys)' },
  'scripts/backup.ts': { actsFor: 'the operator (backups and restores, recorded)' },
  'scripts/index.ts': { actsFor: 'the operator (the partner key, as the change feed does; recorded)' },
  'scripts/start.ts': { actsFor: 'the operator (starts the portal)' },
  'scripts/screens.ts': { actsFor: 'a developer (screenshots of a sandbox portal)' },
  'scripts/docs-layers.mjs': { actsFor: 'a developer (draws the layers of lib/ into docs/architecture.md)' },
  'scripts/openapi.ts': { actsFor: 'a developer (writes the OpenAPI document and the client made from it)' },
  'scripts/portal-node-options.ts': { actsFor: 'nobody: the server’s V8 options' },
  'scripts/portal-server.mjs': { actsFor: 'every request, judged by the guards above and API v1' },
  'scripts/run.mjs': { actsFor: 'the command it starts (listed above)' },
};

/**
 * Every path that sends data out for a token, and what it pays of the token's limits (lib/tokens/limits.ts): the
 * function in which it is paid, and the call that pays it. A new path is placed here with what it pays.
 */
const TOKEN_SENDS: Record<string, { file: string; fn: string; pays: RegExp[]; what: string }> = {
  'API v1 (every request)': { file: 'lib/api-v1/router.ts', fn: 'answer', pays: [/takeRequest\(token\)/], what: 'a request of its rate' },
  'API v1 lists': { file: 'lib/api-v1/list.ts', fn: 'listAnswer', pays: [/reserveRecords\(/], what: 'a record per record served' },
  'API v1 one pick': { file: 'lib/api-v1/router.ts', fn: 'pickAnswer', pays: [/reserveRecords\(token, 1\)/], what: 'a record' },
  'event pages': { file: 'lib/api-v1/events-page.ts', fn: 'eventsPageAnswer', pays: [/reserveRecords\(/], what: 'a record per event' },
  'the event stream': {
    file: 'lib/api-v1/events-stream.ts',
    fn: 'openEventStream',
    pays: [/takeRequest\(token\)/],
    what: 'a request',
  },
  receipts: {
    file: 'lib/api-v1/events-receipt.ts',
    fn: 'receiptAnswer',
    pays: [/reserveRecords\(token, cost\)/],
    what: 'a record per 1,000 ids',
  },
  'the event stream’s events': {
    file: 'lib/api-v1/events-stream.ts',
    fn: 'runStream',
    pays: [/reserveRecords\(/],
    what: 'a record per event',
  },
  'the in-order webhook sender': { file: 'lib/webhooks/worker.ts', fn: 'sendPending', pays: [/quota\.take\(/], what: 'a record per event' },
  'a webhook resend': {
    file: 'lib/http/webhooks.ts',
    fn: 'resendResponse',
    pays: [/chargeRequest\(token\)/, /mustHaveRecords\(token\)/, /sendNow\(token,/],
    what: 'a request, a record per event',
  },
  'a resent event': { file: 'lib/http/webhooks.ts', fn: 'sendNow', pays: [/chargeRecord\(token\)/], what: 'a record' },
  'a webhook test event': {
    file: 'lib/http/webhooks.ts',
    fn: 'testResponse',
    pays: [/chargeRequest\(token\)/, /takeAction\('webhook\.test'/],
    what: 'a request; the person’s and the webhook’s rate',
  },
};

/** The text of one function of a file, from its declaration to the next one at the top level. */
function functionBody(source: string, name: string): string {
  const start = source.search(new RegExp(`(async )?function\\*? ${name}\\(`));
  if (start < 0) return '';
  const rest = source.slice(start + 1);
  const end = rest.search(/\n(export |async function |function |const |\/\*\*)/);
  return end < 0 ? rest : rest.slice(0, end);
}

describe('the one rule for who may act', () => {
  it('makes every path that sends data out for a token pay for it', () => {
    for (const [path_, send] of Object.entries(TOKEN_SENDS)) {
      const body = functionBody(read(send.file), send.fn);
      expect(body.length, `${path_}: ${send.file} ${send.fn}`).toBeGreaterThan(0);
      for (const pays of send.pays) expect(body, `${path_} pays ${send.what}`).toMatch(pays);
    }
    // Every send of a webhook goes through one of the listed functions.
    const senders = files('lib', /\.ts$/).filter((file) => /\bsendMessage\(/.test(read(file)) && !file.endsWith('/send.ts'));
    expect(senders.sort()).toEqual(['lib/http/webhooks.ts', 'lib/webhooks/worker.ts']);
  });

  it('is asked by the session guards, the route wrapper and API v1', () => {
    const session = read('lib/http/session.ts');
    for (const guard of ['requirePage', 'requireApi', 'sessionMay']) {
      const body = session.slice(session.indexOf(`export async function ${guard}(`));
      expect(body.slice(0, body.indexOf('\n}\n')), guard).toMatch(/mayAct\(/);
    }
    expect(read('lib/http/index.ts')).toMatch(/await requireApi\(capability\)/);
    expect(read('lib/tokens/access.ts')).toMatch(/await mayAct\(tokenPrincipal\(token\), 'tokens'/);
    expect(read('lib/auth/session-token.ts')).toMatch(/standing\(account, person, null, policy\.demoRefused\)/);
  });

  it('guards every route handler: withRole, API v1 or the MCP server (a token, judged by the rule), or a listed public route', () => {
    const routes = files('app', /^route\.ts$/);
    expect(routes.length).toBeGreaterThan(40);
    const unguarded = routes.filter((file) => {
      if (file in PUBLIC_ROUTES) return false;
      const source = read(file);
      const exported = [...source.matchAll(/export const (GET|POST|PUT|PATCH|DELETE) = (\w+)/g)];
      const handler = /const handler = withRole/.test(source);
      return exported.length === 0
        ? !/export \{ handler as/.test(source)
        : !exported.every(
            ([, , how]) => how === 'withRole' || how === 'serveV1OnNext' || how === 'serveMcp' || (how === 'handler' && handler),
          );
    });
    expect(unguarded).toEqual([]);
  });

  it('guards every page and server action', () => {
    const pages = files('app', /^page\.tsx$/).filter((file) => !PUBLIC_PAGES.includes(file));
    expect(pages.filter((file) => !/await requirePage\(/.test(read(file)))).toEqual([]);
    const actions = files('app', /\.tsx?$/).filter((file) => /^'use server';/m.test(read(file)));
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((file) => !/await sessionMay\(/.test(read(file)))).toEqual([]);
  });

  it('places every command, and the one that changes accounts lets the rule see it', () => {
    const scripts = readdirSync(path.join(root, 'scripts'))
      .filter((name) => /\.(ts|mjs)$/.test(name))
      .map((name) => `scripts/${name}`);
    expect(scripts.filter((file) => !(file in COMMANDS))).toEqual([]);
    for (const [file, command] of Object.entries(COMMANDS)) if (command.asks) expect(read(file), command.actsFor).toMatch(command.asks);
  });

  it('places every piece of background work, and those acting for someone ask the rule', () => {
    // One timer (lib/jobs/registry.ts); everything that runs in the background registers with it.
    expect(files('lib', /\.(ts|mjs)$/).filter((file) => /setInterval\(/.test(read(file)))).toEqual(['lib/jobs/registry.ts']);
    const loops = files('lib', /\.(ts|mjs)$/).filter(
      (file) => /\b(registerJob|keepRenewed)\(/.test(read(file)) && !file.startsWith('lib/jobs/registry'),
    );
    expect(loops.length).toBeGreaterThanOrEqual(10);
    expect(loops.filter((file) => !(file in JOBS))).toEqual([]);
    expect(Object.keys(JOBS).filter((file) => !loops.includes(file))).toEqual([]);
    for (const [file, job] of Object.entries(JOBS)) if (job.judgedIn) expect(read(job.judgedIn), `${file}: ${job.actsFor}`).toMatch(ASKS);
  });
});
