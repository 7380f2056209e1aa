import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { eventBody, hashEvent, type PickEvent } from '@/lib/events/shape';
import { canonicalBytes } from '@/lib/proof/canonical';
import { parseSigningKey } from '@/lib/proof/keys';
import { signWith } from '@/lib/proof/signer';
import type { EventRow } from '@/lib/store/events';
import type { TokenScope } from '@/lib/vocabulary/tokens';
import { canonical } from '@/public/verify-picks-events.mjs';
import { TEST_KEY_FILE, writeTestKeys } from '../support/proof';

/**
 * The offline check of saved events against a signed receipt (public/verify-picks-events.mjs, run with Node alone):
 * it accepts the events as received, and rejects them with one removed, one altered, or one added.
 */

const scope: TokenScope = { content: ['picks', 'results', 'changes'], sports: [], leagues: [], from: null, to: null };
const display = { sport: 'Tennis', league: 'ATP', eventDate: '2026-11-21T10:00:00Z' };

function chain(): PickEvent[] {
  const events: PickEvent[] = [];
  let prev: string | null = 'hash-of-event-2';
  for (let seq = 3; seq <= 8; seq += 1) {
    const body = JSON.stringify({ id: `p${seq}`, homeTeam: 'Mönch', odds: 1.5 + seq / 100, status: 'upcoming' });
    const row: EventRow = {
      seq,
      detectedAt: '2026-11-20T14:05:00.000Z',
      pickId: `p${seq}`,
      kinds: ['new'],
      display,
      before: null,
      after: { status: 'upcoming', result: null, publishedAt: null },
      digest: `d${seq}`,
      prevDigest: null,
    };
    const event = eventBody(row, new Map([[`d${seq}`, body]]), scope);
    const hash = hashEvent(event);
    events.push({ ...event, prev, hash });
    prev = hash;
  }
  return events;
}

async function verify(events: unknown[]): Promise<{ code: number; out: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'events-verify-'));
  const saved = events.map((event) => JSON.stringify(event)).join('\n');
  await writeFile(path.join(dir, 'events.jsonl'), saved);
  const all = chain();
  const statement = {
    tokenId: 'tok_1',
    from: 3,
    to: 8,
    count: 6,
    firstId: 3,
    lastId: 8,
    prev: 'hash-of-event-2',
    lastHash: all.at(-1)!.hash,
  };
  const key = await parseSigningKey(readFileSync(TEST_KEY_FILE, 'utf8'));
  const jws = await signWith(key, canonicalBytes(statement), 'picks-events-receipt+json');
  await writeFile(path.join(dir, 'receipt.json'), JSON.stringify({ receipt: statement, jws }));
  const keys = await writeTestKeys(path.join(dir, 'keys.json'));
  const args = [
    path.resolve('public/verify-picks-events.mjs'),
    path.join(dir, 'events.jsonl'),
    '--receipt',
    path.join(dir, 'receipt.json'),
    '--keys',
    keys,
  ];
  try {
    const { stdout } = await promisify(execFile)(process.execPath, args);
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: `${failed.stdout}${failed.stderr}` };
  }
}

describe('checking saved events against a receipt', () => {
  it('hashes as the portal does (RFC 8785)', () => {
    const sample = { b: [1, 2.5, -0, 1e21, 'ü\u2028'], a: { z: null, y: true }, é: 'x', A: 0.1 + 0.2 };
    expect(canonical(sample)).toBe(canonicalBytes(sample).toString('utf8'));
  });

  it('accepts the events as received', async () => {
    const { code, out } = await verify(chain());
    expect(out).toContain('verified: none missing, altered or added');
    expect(code).toBe(0);
  });

  it('rejects them with one removed, one altered, or one added', async () => {
    const removed = chain().filter((event) => event.seq !== 5);
    const gone = await verify(removed);
    expect(gone.code).toBe(1);
    expect(gone.out).toMatch(/FAIL links: broken at 6 \(the event before it is not the one saved\)/);
    expect(gone.out).toMatch(/FAIL count: 5 saved from 3 to 8; the receipt says 6/);

    const altered = chain();
    altered[2] = { ...altered[2]!, record: { ...altered[2]!.record, odds: 9.99 } };
    const changed = await verify(altered);
    expect(changed.code).toBe(1);
    expect(changed.out).toMatch(/FAIL hashes: altered: 5/);

    // Altered with its hash made again: the next event no longer follows it.
    const rehashed = chain();
    const forged = { ...rehashed[2]!, record: { ...rehashed[2]!.record, odds: 9.99 } };
    rehashed[2] = { ...forged, hash: hashEvent(forged) };
    const relinked = await verify(rehashed);
    expect(relinked.code).toBe(1);
    expect(relinked.out).toMatch(/FAIL links: broken at 6/);

    const added = chain();
    const extra = { ...added[3]!, seq: 6, pickId: 'p-forged' };
    added.splice(4, 0, { ...extra, hash: hashEvent(extra) });
    const more = await verify(added);
    expect(more.code).toBe(1);
    expect(more.out).toMatch(/FAIL count: 7 saved/);
  });
});
