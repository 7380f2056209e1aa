import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Papa from 'papaparse';
import { MANIFEST_TYPE } from '../lib/audit/manifest';
import { idsDigest } from '../lib/proof/attest';
import { parseSigningKey } from '../lib/proof/keys';
import { canonicalBytes } from '../lib/proof/canonical';
import { signWith } from '../lib/proof/signer';
import { benchOptions, writeResult } from './options';
import { median } from './support';

/**
 * `npm run bench:verify`: the offline verifier (public/verify-picks-file.mjs, run with Node alone as a recipient
 * would) on a CSV of --mb megabytes written as the portal writes them (papaparse, every field, quoted reasoning with
 * commas and newlines), with its signed manifest; against the floor of reading the same file and hashing it
 * (sha256) in the same rounds. Target: at least 100 MB/s.
 */

const options = benchOptions('bench:verify', 'The offline verifier on a large CSV, against reading and hashing the same file.', {
  mb: { default: 100, help: 'the size of the CSV, in MB' },
  rounds: { default: 5, help: 'alternating rounds' },
});
const run = promisify(execFile);
const dir = await mkdtemp(path.join(tmpdir(), 'bench-verify-'));
const file = path.join(dir, 'picks-bench.csv');

// A file like the portal's: the same columns, varied text, quotes, commas and newlines in the reasoning.
const columns = [
  'id',
  'sport',
  'league',
  'eventDate',
  'homeTeam',
  'awayTeam',
  'marketType',
  'selection',
  'odds',
  'reasoning',
  'status',
  'result',
];
const out = createWriteStream(file);
const ids: string[] = [];
let bytes = 0;
const write = (text: string) => {
  bytes += Buffer.byteLength(text);
  return out.write(text) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => resolve()));
};
await write(`${Papa.unparse([columns], { newline: '\r\n' })}\r\n`);
for (let n = 0; bytes < options.mb * 1_000_000; n += 1) {
  const id = `pk_${n.toString(36)}_${(n * 2654435761) % 1_000_003}`;
  ids.push(id);
  const row = [
    id,
    'Football',
    'Premier League',
    '2026-11-20T15:00:00Z',
    'Arsenal',
    'Chelsea',
    'moneyline',
    'Arsenal',
    2.1,
    `Form, "pace" and depth, over ${n % 97} games,\nweighted by venue; café ${n}`,
    'settled',
    n % 3 ? 'win' : 'loss',
  ];
  await write(`${Papa.unparse([row], { newline: '\r\n' })}\r\n`);
}
await new Promise<void>((resolve) => out.end(() => resolve()));
const size = (await stat(file)).size;
const hash = createHash('sha256');
for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
const key = await parseSigningKey(await readFile('tests/support/test-signing-key.pem', 'utf8'));
const manifest = canonicalBytes({
  file: path.basename(file),
  bytes: size,
  sha256: hash.digest('hex'),
  records: ids.length,
  recordIds: idsDigest([...ids]),
});
await writeFile(`${file}.manifest.json`, manifest);
await writeFile(`${file}.manifest.jws`, await signWith(key, manifest, MANIFEST_TYPE));
await writeFile(path.join(dir, 'keys.json'), JSON.stringify({ keys: [key.publicJwk] }));

const floor: number[] = [];
const verify: number[] = [];
for (let round = 0; round < options.rounds; round += 1) {
  let start = performance.now();
  await run(process.execPath, [
    '-e',
    `const h=require('crypto').createHash('sha256');require('fs').createReadStream(${JSON.stringify(file)},{highWaterMark:1<<20}).on('data',c=>h.update(c)).on('end',()=>h.digest())`,
  ]);
  floor.push(performance.now() - start);
  start = performance.now();
  const { stdout } = await run(process.execPath, ['public/verify-picks-file.mjs', file, '--keys', path.join(dir, 'keys.json')]);
  verify.push(performance.now() - start);
  if (!stdout.includes('verified: every check holds')) throw new Error(`the verifier did not verify the bench file:\n${stdout}`);
}
const mb = size / 1_000_000;
const figures = {
  fileMb: Number(mb.toFixed(1)),
  records: ids.length,
  verifyMs: Math.round(median(verify)),
  verifyMbPerS: Math.round(mb / (median(verify) / 1000)),
  floorMs: Math.round(median(floor)),
  floorMbPerS: Math.round(mb / (median(floor) / 1000)),
  ratio: Number((median(verify) / median(floor)).toFixed(2)),
};
console.log(`[bench:verify] ${figures.fileMb} MB, ${figures.records} records, ${options.rounds} rounds (medians, each a whole process)`);
console.log(`  verifier              ${figures.verifyMs} ms   ${figures.verifyMbPerS} MB/s   (target ≥ 100 MB/s)`);
console.log(`  read + sha256 floor   ${figures.floorMs} ms   ${figures.floorMbPerS} MB/s   verifier/floor ${figures.ratio}×`);
await writeResult('verify', { options, figures });
await rm(dir, { recursive: true, force: true });
