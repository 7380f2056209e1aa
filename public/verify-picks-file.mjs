#!/usr/bin/env node
// verify-picks-file.mjs: checks a file the Picks Partner Portal delivered, with Node.js alone (18 or later), nothing installed.
//
//   node verify-picks-file.mjs <file> --keys <jwks.json or https://portal/api/proof/keys> [--manifest <m.json>] [--jws <m.jws>]
//
// The manifest and its JWS are found beside the file (<file>.manifest.json, <file>.manifest.jws) unless named.
// It checks the JWS's signature (EdDSA) with the keys given, that the manifest is exactly the signed payload, the
// file's bytes and sha256, then re-reads the file (CSV, JSON or JSON Lines; a Parquet file's bytes alone) and checks
// the record count and the digest of its record ids (sha256 of the ids sorted by their UTF-8 bytes, each followed by a newline); it prints the licence
// attestation. Exit 0 only when everything holds; otherwise exit 1, naming each failure.
// Dependency-free on purpose, so a recipient can run it anywhere; it reads files with picks-file-readers.mjs, served
// beside it (download both into one folder).
import { createHash, createPublicKey, verify } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { readBytes, readCsv, readJson, readJsonLines } from './picks-file-readers.mjs';

const fromB64url = (text) => Buffer.from(text, 'base64url');

/** The JWK Set from a file or an http(s) address. */
export async function readKeys(where) {
  const text = /^https?:\/\//.test(where) ? await (await fetch(where)).text() : await readFile(where, 'utf8');
  const set = JSON.parse(text);
  if (!Array.isArray(set.keys)) throw new Error(`${where} is not a JWK Set (no "keys")`);
  return set.keys;
}

export const MANIFEST_TYPE = 'picks-manifest+json';

/**
 * Checks a compact JWS with the keys given; returns the payload's bytes, the header and when it was signed, or
 * throws saying why. It must be of the type expected (`typ`), by a key not marked compromised, and a key that
 * was retired must have signed before its retirement, as the signature's own protected `signedAt` says.
 */
export function checkJws(jws, keys, typ = MANIFEST_TYPE) {
  const parts = jws.trim().split('.');
  if (parts.length !== 3) throw new Error('it is not a compact JWS (three parts separated by dots)');
  const header = JSON.parse(fromB64url(parts[0]).toString('utf8'));
  if (header.alg !== 'EdDSA') throw new Error(`its algorithm is ${header.alg}, not EdDSA`);
  if (header.typ !== typ)
    throw new Error(`its type is ${header.typ === undefined ? 'not stated' : JSON.stringify(header.typ)}, not ${typ}`);
  const jwk = keys.find((key) => key.kid === header.kid);
  if (!jwk) throw new Error(`it was signed with key ${header.kid}, which is not among the keys given`);
  if (jwk.compromisedAt)
    throw new Error(
      `key ${header.kid} was marked compromised at ${jwk.compromisedAt}: nothing it signed can be trusted, whenever it says it was signed`,
    );
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  if (!verify(null, Buffer.from(`${parts[0]}.${parts[1]}`), key, fromB64url(parts[2])))
    throw new Error(`its signature does not match key ${header.kid}: the manifest or the signature was changed`);
  const payload = fromB64url(parts[1]);
  const signedAt = isTime(header.signedAt) ? header.signedAt : statedTime(payload);
  if (jwk.retiredAt) {
    if (!signedAt) throw new Error(`key ${header.kid} was retired at ${jwk.retiredAt}, and this signature does not say when it was made`);
    // A time its signer states: it stops a copy of a retired key used as is; one marked compromised stops every use.
    if (Date.parse(signedAt) >= Date.parse(jwk.retiredAt))
      throw new Error(`it was signed at ${signedAt}, at or after key ${header.kid} was retired (${jwk.retiredAt})`);
  }
  return { payload, header, signedAt, retiredAt: jwk.retiredAt ?? null };
}

const isTime = (value) => typeof value === 'string' && !Number.isNaN(Date.parse(value));

/** Signatures made before the portal stated its signing time: the time their payload states it was made (its end). */
function statedTime(payload) {
  try {
    const document = JSON.parse(payload.toString('utf8'));
    return [document.finishedAt, document.endedAt, document.at].find(isTime) ?? null;
  } catch {
    return null;
  }
}

/** The digest of ids given as byte strings: sorted (code-unit order of byte strings is UTF-8 byte order), one per line. */
export function idsDigest(ids) {
  ids.sort();
  const hash = createHash('sha256');
  // A few thousand ids per update: one call per id costs more than the hashing.
  for (let i = 0; i < ids.length; i += 4096) hash.update(`${ids.slice(i, i + 4096).join('\n')}\n`, 'latin1');
  return { count: ids.length, sha256: hash.digest('hex') };
}

const READERS = { csv: ['CSV', null], json: ['JSON', readJson], jsonl: ['JSON Lines', readJsonLines], parquet: ['Parquet', readBytes] };

/** Every check, in order: `{ name, ok, detail }`; and the manifest's licence attestation. */
export async function verifyFile({ file, manifest: manifestFile, jws: jwsFile, keys }) {
  const checks = [];
  const notes = [];
  const check = (name, ok, detail) => checks.push({ name, ok, detail });
  const beside = (suffix) => (existsSync(`${file}${suffix}`) ? `${file}${suffix}` : null);
  jwsFile ??= beside('.manifest.jws');
  manifestFile ??= beside('.manifest.json');
  if (file.endsWith('.pgp')) {
    check('file', false, 'it is encrypted (.pgp): decrypt it first (gpg --decrypt), then verify the clear file');
    return { checks, attestation: null };
  }
  let manifest = null;
  if (!jwsFile) check('signature', false, `no JWS was named and none is beside the file (${path.basename(file)}.manifest.jws)`);
  else
    try {
      const { payload, header, signedAt, retiredAt } = checkJws(await readFile(jwsFile, 'utf8'), keys);
      // Said only once checked: a retired key's signature was made before its retirement (checkJws refuses the others).
      const when = signedAt ? `, signed ${signedAt}` : '';
      check('signature', true, `EdDSA, key ${header.kid}${when}${retiredAt ? ` (retired ${retiredAt}; it signed before then)` : ''}`);
      manifest = JSON.parse(payload.toString('utf8'));
      if (manifestFile) {
        const same = (await readFile(manifestFile)).equals(payload);
        check('manifest', same, same ? 'exactly the signed payload' : `${path.basename(manifestFile)} differs from what was signed`);
      }
    } catch (error) {
      check('signature', false, error.message);
    }
  if (!manifest) return { checks, attestation: null };
  const format = manifest.format ?? path.extname(manifest.file ?? file).slice(1);
  const [label, reader] = READERS[format] ?? READERS.csv;
  let read;
  try {
    read = await (reader ? reader(file) : readCsv(file, Boolean(manifest.recordIds)));
  } catch (error) {
    check('file', false, `${path.basename(file)} cannot be read as ${label}: ${error.message}`);
    return { checks, attestation: manifest.licenceAttestation ?? null };
  }
  const same = (name, found, stated) =>
    check(name, found === stated, found === stated ? String(found) : `the file's is ${found}, the manifest says ${stated}`);
  same('bytes', read.bytes, manifest.bytes);
  same('sha256', read.sha256, manifest.sha256);
  // Parquet: the signed sha256 and size vouch for every byte; its records are read with a Parquet reader.
  if (read.records === undefined)
    notes.push(`records: ${manifest.records} by the signed manifest; read them with a Parquet reader (the sha256 above covers every byte)`);
  else same('records', read.records, manifest.records);
  // Audit downloads and change-feed files hold entries, not records: their manifests have no record-id digest.
  const stated = manifest.recordIds;
  if (!stated) notes.push(`record ids: not stated by this manifest (a ${manifest.kind ?? 'file'} of entries, not records)`);
  else if (read.ids) {
    const digest = idsDigest(read.ids);
    const ok = digest.sha256 === stated.sha256 && digest.count === stated.count;
    const found = `${digest.sha256} (${digest.count})`;
    const wrong = `the file's ids digest to ${found}, the manifest says ${stated.sha256} (${stated.count})`;
    check('record ids', ok, ok ? `${digest.count}, sha256 ${digest.sha256}` : wrong);
  }
  return { checks, attestation: manifest.licenceAttestation ?? null, manifest, notes };
}

/** The attestation in a few lines. */
export function describeAttestation(attestation) {
  if (!attestation) return ['licence attestation: none in this manifest'];
  const lines = [`licence attestation: ${attestation.result}${attestation.licenceId ? ` (licence ${attestation.licenceId})` : ''}`];
  lines.push(`  /me sha256 ${attestation.meSha256 ?? 'not read'}${attestation.meReadAt ? `, read ${attestation.meReadAt}` : ''}`);
  for (const [dimension, c] of Object.entries(attestation.checks ?? {}))
    lines.push(`  ${dimension}: ${c.state}${c.outside ? ` (${c.outside} records outside)` : ''}${c.reason ? ` — ${c.reason}` : ''}`);
  if (attestation.outside?.count)
    lines.push(`  outside the licence: ${attestation.outside.count} records, first ${attestation.outside.firstIds.join(', ')}`);
  return lines;
}

async function main(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { keys: { type: 'string' }, manifest: { type: 'string' }, jws: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help || positionals.length !== 1 || !values.keys) {
    console.error(
      'usage: node verify-picks-file.mjs <file> --keys <jwks.json | https://…/api/proof/keys> [--manifest <m.json>] [--jws <m.jws>]',
    );
    return 2;
  }
  const keys = await readKeys(values.keys);
  const { checks, attestation, notes = [] } = await verifyFile({ file: positionals[0], manifest: values.manifest, jws: values.jws, keys });
  console.log(path.basename(positionals[0]));
  for (const c of checks) console.log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
  for (const note of notes) console.log(`  note ${note}`);
  for (const line of describeAttestation(attestation)) console.log(line);
  const failed = checks.filter((c) => !c.ok);
  console.log(failed.length ? `NOT VERIFIED: ${failed.map((c) => c.name).join(', ')}` : 'verified: every check holds');
  return failed.length ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href)
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(`verify-picks-file: ${error.message}`);
      process.exit(1);
    },
  );
