import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_EVENTS } from '@/lib/api-v1/examples';
import { SIGNATURE_SNIPPETS, STREAM_SNIPPETS } from '@/lib/api-v1/verify-snippets';
import { hashEvent } from '@/lib/events/shape';

/**
 * The code /developers/events shows, run as a reader would run it: each language's signature check accepts a message
 * the portal's signer made and refuses it altered or too old; the Python stream check accepts events the portal
 * chained (accents and decimals in them) and names the one altered.
 */

const run = promisify(execFile);
const has = (command: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`]);
    return true;
  } catch {
    return false;
  }
};
const python = has('python3');
const openssl = has('openssl');
if (!python) console.warn('[test] python3 not installed: the Python snippets were SKIPPED');
if (!openssl) console.warn('[test] openssl not installed: the shell snippet was SKIPPED');

const SECRET = `whsec_${Buffer.from('a-webhook-secret-of-32-bytes-xyz').toString('base64')}`;
const snippet = (language: string, of = SIGNATURE_SNIPPETS) => of.find((s) => s.language === language)!.code;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'snippets-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A message as a receiver gets it: the body's bytes and the three headers. */
function signed(body: string, at = new Date()) {
  const id = 'evt_1042';
  return {
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(SECRET).sign(id, at, body),
    },
  };
}

type Message = ReturnType<typeof signed>;

const checkers: Record<string, (m: Message) => Promise<string>> = {
  'Node.js': async ({ body, headers }) => {
    const code = `${snippet('Node.js')}\nconsole.log(verify(${JSON.stringify(SECRET)}, ${JSON.stringify(headers)}, ${JSON.stringify(body)}));`;
    return (await run(process.execPath, ['--input-type=module', '-e', code], { cwd: process.cwd() })).stdout.trim();
  },
  Python: async ({ body, headers }) => {
    const code = `${snippet('Python')}\nimport json, sys\nm = json.load(sys.stdin)\nprint(verify(${JSON.stringify(SECRET)}, m["headers"], m["body"].encode()))`;
    const child = run('python3', ['-c', code]);
    child.child.stdin!.end(JSON.stringify({ body, headers }));
    return (await child).stdout.trim();
  },
  'Shell (OpenSSL)': async ({ body, headers }) => {
    await writeFile(path.join(dir, 'body.json'), body);
    const env = {
      ...process.env,
      WEBHOOK_SECRET: SECRET,
      ID: headers['webhook-id'],
      TIMESTAMP: headers['webhook-timestamp'],
      SIGNATURE: headers['webhook-signature'],
    };
    return (await run('bash', ['-c', snippet('Shell (OpenSSL)')], { cwd: dir, env })).stdout.trim();
  },
};
const said = { yes: { 'Node.js': 'true', Python: 'True', 'Shell (OpenSSL)': 'verified' } as Record<string, string> };

describe('the signature checks on /developers/events', () => {
  const body = JSON.stringify({
    type: 'pick.changed',
    timestamp: EXAMPLE_EVENTS['pick.changed'].detectedAt,
    data: EXAMPLE_EVENTS['pick.changed'],
  });
  for (const language of SIGNATURE_SNIPPETS.map((s) => s.language)) {
    const skip = (language === 'Python' && !python) || (language === 'Shell (OpenSSL)' && !openssl);
    it.skipIf(skip)(`${language}: accepts the portal’s message, refuses it altered or ten minutes old`, { timeout: 20_000 }, async () => {
      const check = checkers[language]!;
      const message = signed(body);
      expect(await check(message)).toBe(said.yes[language]);
      expect(await check({ ...message, body: body.replace('1.95', '9.95') })).not.toBe(said.yes[language]);
      expect(await check(signed(body, new Date(Date.now() - 600_000)))).not.toBe(said.yes[language]);
    });
  }
});

describe('the saved stream check on /developers/events', () => {
  it.skipIf(!python)('Python: accepts events the portal chained, and names the one altered', { timeout: 20_000 }, async () => {
    const events: Record<string, unknown>[] = [];
    let prev: string | null = null;
    for (const event of Object.values(EXAMPLE_EVENTS)) {
      const record = event.record ? { ...event.record, homeTeam: 'Sporting Clube de Braga — Ålesund', odds: 0.1 + 0.2 } : null;
      const body = { ...event, record };
      const hash = hashEvent(body);
      events.push({ ...body, prev, hash });
      prev = hash;
    }
    const check = async (lines: string[]) => {
      const code = `${snippet('Python', STREAM_SNIPPETS)}\nimport sys\nprint(check_stream(sys.stdin.read().splitlines()))`;
      const child = run('python3', ['-c', code]);
      child.child.stdin!.end(lines.join('\n'));
      return child.then(
        (r) => r.stdout.trim(),
        (error: { stderr: string }) => error.stderr.trim().split('\n').at(-1)!,
      );
    };
    const lines = events.map((e) => JSON.stringify(e));
    expect(await check(lines)).toBe(String(events.length));
    const altered = lines.map((line, i) => (i === 2 ? line.replace('"settled"', '"void"') : line));
    expect(await check(altered)).toBe(`ValueError: line 3: event ${events[2]!.seq as number} was altered`);
    expect(await check([lines[0]!, ...lines.slice(2)])).toMatch(/^ValueError: line 2: an event is missing or added before \d+/);
  });
});
