#!/usr/bin/env node
// verify-picks-events.mjs: checks events a consumer saved from the Picks Partner Portal's API v1 event stream
// against a receipt the portal signed, with Node.js alone (18 or later) and verify-picks-file.mjs beside it.
//
//   node verify-picks-events.mjs <events.jsonl | events.json> --receipt <receipt.json> --keys <jwks.json or https://portal/api/proof/keys>
//
// events: the `data` of each event as received, one JSON object a line (or a JSON array). receipt: the answer of
// GET /api/v1/events/receipt?from=&to= (its `jws`). It checks the receipt's signature (EdDSA, type
// picks-events-receipt+json), then, for the saved events from `from` to `to`: each event's hash (sha256, base64url,
// of its canonical JSON — RFC 8785 — without `prev` and `hash`), each link (`prev` is the hash of the event before),
// the count and the last hash the receipt states. So none is missing, altered or added. Exit 0 only when all hold.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { checkJws, readKeys } from './verify-picks-file.mjs';

export const RECEIPT_TYPE = 'picks-events-receipt+json';

/** RFC 8785 for what JSON.parse gives: keys sorted by UTF-16 code units, ECMAScript's number and string forms. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** An event's hash: what its `hash` must say. */
export function eventHash(event) {
  const { prev: _prev, hash: _hash, ...body } = event;
  return createHash('sha256').update(canonical(body), 'utf8').digest('base64url');
}

/** Saved events: a JSON array, or one JSON object a line. */
export async function readEvents(file) {
  const text = (await readFile(file, 'utf8')).trim();
  if (text.startsWith('[')) return JSON.parse(text);
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      try {
        return JSON.parse(line);
      } catch {
        throw new Error(`line ${i + 1} of ${path.basename(file)} is not JSON`);
      }
    });
}

/** Checks `events` against the signed receipt; returns the checks (name, ok, detail) and the statement. */
export function verifyEvents(events, receiptJws, keys) {
  const checks = [];
  const check = (name, ok, detail) => checks.push({ name, ok, detail });
  let statement;
  try {
    const { payload, signedAt } = checkJws(receiptJws, keys, RECEIPT_TYPE);
    statement = JSON.parse(payload.toString('utf8'));
    check('signature', true, `signed by the portal at ${signedAt ?? 'an unstated time'}`);
  } catch (error) {
    check('signature', false, error.message);
    return { checks, statement: null };
  }
  const inRange = events.filter((e) => Number.isInteger(e.seq) && e.seq >= statement.from && e.seq <= statement.to);
  const altered = inRange.filter((e) => eventHash(e) !== e.hash).map((e) => e.seq);
  check(
    'hashes',
    altered.length === 0,
    altered.length === 0 ? `${inRange.length} events hash as they say` : `altered: ${altered.join(', ')}`,
  );
  const broken = [];
  let before = statement.prev ?? null;
  let last = 0;
  for (const event of inRange) {
    if (event.seq <= last) broken.push(`${event.seq} (out of order or twice)`);
    else if ((event.prev ?? null) !== before) broken.push(`${event.seq} (the event before it is not the one saved)`);
    before = event.hash;
    last = event.seq;
  }
  check('links', broken.length === 0, broken.length === 0 ? 'each event follows the one before' : `broken at ${broken.join(', ')}`);
  check(
    'count',
    inRange.length === statement.count,
    `${inRange.length} saved from ${statement.from} to ${statement.to}; the receipt says ${statement.count}`,
  );
  const lastHash = inRange.at(-1)?.hash ?? null;
  check('last hash', lastHash === statement.lastHash, lastHash === statement.lastHash ? 'as the receipt says' : 'differs from the receipt');
  return { checks, statement };
}

async function main(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { receipt: { type: 'string' }, keys: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help || positionals.length !== 1 || !values.keys || !values.receipt) {
    console.error(
      'usage: node verify-picks-events.mjs <events.jsonl | events.json> --receipt <receipt.json> --keys <jwks.json | https://…/api/proof/keys>',
    );
    return 2;
  }
  const keys = await readKeys(values.keys);
  const receipt = JSON.parse(await readFile(values.receipt, 'utf8'));
  const { checks, statement } = verifyEvents(await readEvents(positionals[0]), receipt.jws, keys);
  console.log(
    `${path.basename(positionals[0])}${statement ? `: token ${statement.tokenId}, events ${statement.from} to ${statement.to}` : ''}`,
  );
  for (const c of checks) console.log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
  const failed = checks.filter((c) => !c.ok);
  console.log(failed.length ? `NOT VERIFIED: ${failed.map((c) => c.name).join(', ')}` : 'verified: none missing, altered or added');
  return failed.length ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href)
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(`verify-picks-events: ${error.message}`);
      process.exit(1);
    },
  );
