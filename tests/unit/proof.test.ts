import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CompactSign, compactVerify, createLocalJWKSet } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { idsDigest, newAttestor } from '@/lib/proof/attest';
import { loadSigningKey, parseSigningKey, replaceKey, writeNewKey } from '@/lib/proof/keys';
import { openStore, type Store } from '@/lib/store/open';
import { listSigningKeys, markKeyCompromised, registerSigningKey, RetiredKeyError } from '@/lib/store/signing-keys';
import { publishedKeys, signWith } from '@/lib/proof/signer';
import type { LicenceSummary } from '@/lib/vocabulary/licence';
import { checkJws, MANIFEST_TYPE, type Jwk } from '@/public/verify-picks-file.mjs';
import { readCsv, readJsonLines } from '@/public/picks-file-readers.mjs';
import { embeddedPortalEnv, storeEngines } from '../support/store-engines';

/**
 * Signing keys (files, kid, registration and rotation on both engines), the licence attestation and record-id
 * digest, and the standalone verifier's CSV reader and JWS check (it imports nothing of the portal's).
 */

const run = promisify(execFile);
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
const tmp = () => mkdtemp(path.join(tmpdir(), 'proof-'));

describe('signing keys', () => {
  it('are made owner-only on the embedded database, read back with the same kid, and required with DATABASE_URL', async () => {
    const dir = await tmp();
    const made = await loadSigningKey({ PORTAL_DATA_DIR: dir });
    expect((await stat(path.join(dir, 'signing-key.pem'))).mode & 0o777).toBe(0o600);
    const again = await loadSigningKey({ PORTAL_DATA_DIR: dir });
    expect(again.kid).toBe(made.kid);
    expect(made.kid).toMatch(/^[A-Za-z0-9_-]{43}$/); // an RFC 7638 thumbprint (sha256, base64url)
    await expect(loadSigningKey({ PORTAL_DATA_DIR: dir, DATABASE_URL: 'postgres://db/portal' })).rejects.toThrow(
      /PORTAL_SIGNING_KEY_FILE is required with DATABASE_URL/,
    );
    await expect(loadSigningKey({ PORTAL_DATA_DIR: dir, PORTAL_SIGNING_KEY_FILE: path.join(dir, 'none.pem') })).rejects.toThrow(
      /PORTAL_SIGNING_KEY_FILE \(.*none\.pem\) cannot be read/,
    );
    // A key others can read is refused, as ssh refuses one.
    const { chmod } = await import('node:fs/promises');
    await chmod(path.join(dir, 'signing-key.pem'), 0o644);
    await expect(loadSigningKey({ PORTAL_DATA_DIR: dir })).rejects.toThrow(
      /can be read or written by others \(mode 0644\): make it owner-only/,
    );
    await chmod(path.join(dir, 'signing-key.pem'), 0o600);
    expect((await loadSigningKey({ PORTAL_DATA_DIR: dir })).kid).toBe(made.kid);
  });

  it('stop signing once their key is retired or marked compromised, saying why', async () => {
    const dir = await tmp();
    Object.assign(process.env, embeddedPortalEnv(dir));
    const { getStore, closeStore } = await import('@/lib/store');
    const { startSigning, signBytes } = await import('@/lib/proof/signer');
    const { processSlot } = await import('@/lib/process-state');
    try {
      const store = await getStore();
      const key = await startSigning(store);
      expect(checkJws(await signBytes(Buffer.from('{}'), MANIFEST_TYPE), (await publishedKeys(store.db)).keys as Jwk[]).signedAt).toEqual(
        expect.any(String),
      );
      // A checkpoint is signed inside its transaction, which on the embedded database holds the one connection.
      const { appendAudit } = await import('@/lib/store/audit');
      const { sealAudit } = await import('@/lib/audit/checkpoints');
      const { signCheckpoint } = await import('@/lib/audit/sealing');
      await appendAudit(store.db, {
        actor: 'cli',
        role: null,
        action: 'sign-in',
        target: null,
        filters: null,
        outcome: 'complete',
        errorCode: null,
        records: null,
        bytes: null,
        sha256: null,
        durationMs: null,
        requestIds: [],
        address: null,
        licence: null,
      });
      processSlot('signingKeyStanding').set(undefined); // its standing read afresh, through that transaction
      expect(await sealAudit(store.db, signCheckpoint, { every: 1, minutes: 0, force: true })).toMatchObject({ id: 1 });
      const newer = await writeNewKey(path.join(dir, 'newer.pem'));
      await registerSigningKey(store.db, newer.kid, newer.publicJwk); // another instance took over with a new key
      processSlot('signingKeyStanding').set(undefined); // past its few seconds
      await expect(signBytes(Buffer.from('{}'), MANIFEST_TYPE)).rejects.toThrow(
        `Not signed: this instance's signing key ${key.kid} was retired at`,
      );
    } finally {
      await closeStore();
    }
  });

  it('are read from PEM or JWK, and anything else is refused in plain words', async () => {
    const dir = await tmp();
    const key = await writeNewKey(path.join(dir, 'k.pem'));
    const jwk = { ...key.privateKey.export({ format: 'jwk' }) };
    expect((await parseSigningKey(JSON.stringify(jwk))).kid).toBe(key.kid);
    await expect(parseSigningKey('not a key')).rejects.toThrow(/is not a private key in PEM or JWK form/);
    const { generateKeyPairSync } = await import('node:crypto');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    await expect(parseSigningKey(rsa)).rejects.toThrow(/holds an rsa key; the portal signs with Ed25519/);
    await expect(writeNewKey(path.join(dir, 'k.pem'))).rejects.toThrow(/EEXIST/); // never over an existing key
    const next = await replaceKey(path.join(dir, 'k.pem'));
    expect(next.kid).not.toBe(key.kid);
  });
});

describe.each(storeEngines())('the published keys on $name', (engine) => {
  it('a new key retires the one before; a retired key is never used again; old proofs still verify', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const dir = await tmp();
    const first = await writeNewKey(path.join(dir, 'first.pem'));
    expect(await registerSigningKey(store.db, first.kid, first.publicJwk, new Date('2026-11-01T00:00:00Z'))).toBe('added');
    expect(await registerSigningKey(store.db, first.kid, first.publicJwk)).toBe('known'); // a second instance, same key
    const old = await signWith(first, Buffer.from('{"a":1}'), MANIFEST_TYPE, new Date('2026-11-10T00:00:00Z'));
    const untyped = await new CompactSign(Buffer.from('{"a":1}'))
      .setProtectedHeader({ alg: 'EdDSA', kid: first.kid })
      .sign(first.privateKey);

    const second = await writeNewKey(path.join(dir, 'second.pem'));
    await registerSigningKey(store.db, second.kid, second.publicJwk, new Date('2026-11-20T00:00:00Z'));
    const keys = await listSigningKeys(store.db);
    expect(keys.map((k) => [k.kid, k.retiredAt])).toEqual([
      [first.kid, '2026-11-20T00:00:00.000Z'],
      [second.kid, null],
    ]);
    await expect(registerSigningKey(store.db, first.kid, first.publicJwk)).rejects.toThrow(RetiredKeyError);
    await expect(registerSigningKey(store.db, first.kid, first.publicJwk)).rejects.toThrow(/retired at 2026-11-20T00:00:00.000Z/);

    // The set still holds the retired key: the proof it made verifies, with jose and with the standalone verifier.
    const set = { keys: keys.map((k) => k.jwk) };
    const verified = await compactVerify(old, createLocalJWKSet(set as never));
    expect(Buffer.from(verified.payload).toString()).toBe('{"a":1}');
    expect(checkJws(old, set.keys).payload.toString()).toBe('{"a":1}');
    expect(() => checkJws(old, [keys[1]!.jwk])).toThrow(/not among the keys given/);
    const [h, p, s] = old.split('.');
    const signature = Buffer.from(s!, 'base64url');
    signature[10]! ^= 1;
    const flipped = `${h}.${p}.${signature.toString('base64url')}`;
    expect(() => checkJws(flipped, set.keys)).toThrow(/signature does not match/);
    const otherPayload = `${h}.${Buffer.from('{"a":2}').toString('base64url')}.${s}`;
    expect(() => checkJws(otherPayload, set.keys)).toThrow(/signature does not match/);

    // As published: a retired key's signature holds only when it says it was made before the retirement.
    const published = (await publishedKeys(store.db)).keys as Jwk[];
    expect(checkJws(old, published)).toMatchObject({ signedAt: '2026-11-10T00:00:00.000Z', retiredAt: '2026-11-20T00:00:00.000Z' });
    const forged = await signWith(first, Buffer.from('{"a":2}'), MANIFEST_TYPE, new Date('2026-11-20T00:00:00Z'));
    expect(() => checkJws(forged, published)).toThrow(/signed at 2026-11-20T00:00:00.000Z, at or after key .* was retired/);
    const undated = await new CompactSign(Buffer.from('{"a":1}'))
      .setProtectedHeader({ alg: 'EdDSA', kid: first.kid, typ: MANIFEST_TYPE })
      .sign(first.privateKey);
    expect(() => checkJws(undated, published)).toThrow(/does not say when it was made/);
    // The type is required: a checkpoint is no manifest, and a JWS of no type is neither.
    expect(() => checkJws(untyped, set.keys)).toThrow(/its type is not stated, not picks-manifest\+json/);
    const checkpoint = await signWith(second, Buffer.from('{}'), 'picks-audit-checkpoint+json');
    expect(() => checkJws(checkpoint, published)).toThrow(/its type is "picks-audit-checkpoint\+json", not picks-manifest\+json/);
    expect(checkJws(checkpoint, published, 'picks-audit-checkpoint+json').payload.toString()).toBe('{}');

    // A key marked compromised: nothing it signed holds, and no instance starts with it.
    expect(await markKeyCompromised(store.db, second.kid, new Date('2026-11-25T00:00:00Z'))).toBe(true);
    const after = (await publishedKeys(store.db)).keys as Jwk[];
    expect(after.find((k) => k.kid === second.kid)).toMatchObject({
      compromisedAt: '2026-11-25T00:00:00.000Z',
      retiredAt: '2026-11-25T00:00:00.000Z',
    });
    expect(() => checkJws(checkpoint, after, 'picks-audit-checkpoint+json')).toThrow(/marked compromised at 2026-11-25/);
    await expect(registerSigningKey(store.db, second.kid, second.publicJwk)).rejects.toThrow(/marked compromised/);
    expect(await markKeyCompromised(store.db, 'no-such-kid')).toBe(false);
  });
});

const licence = (summary: Partial<LicenceSummary>) => ({
  summary: {
    partner: 'P',
    licenceId: 'lic_1',
    status: 'active',
    sports: null,
    leagues: null,
    from: null,
    to: null,
    contentMode: null,
    channels: null,
    expiresAt: null,
    ...summary,
  },
  document: { licence: { id: 'lic_1', z: 1, a: 2 } },
  readAt: '2026-11-26T00:00:00.000Z',
});

describe('the licence attestation', () => {
  it('checks each record against what /me states, names the first outside, and says unknown for the rest', () => {
    const attestor = newAttestor(
      licence({ sports: ['Football'], leagues: null, from: '2026-11-01', to: '2026-11-30', contentMode: 'full', channels: ['web'] }),
    );
    attestor.see(
      [
        { id: 'a', sport: 'football', league: 'X', eventDate: '2026-11-30T20:00:00Z' }, // the window's last day counts whole
        { id: 'b', sport: 'Tennis', league: 'Y', eventDate: '2026-11-10T00:00:00Z' },
        { id: 'c', sport: 'Football', league: 'Z', eventDate: '2026-12-01T00:00:00Z' },
      ],
      'utf8',
    );
    const attestation = attestor.attestation();
    expect(attestation).toMatchObject({
      licenceId: 'lic_1',
      meReadAt: '2026-11-26T00:00:00.000Z',
      result: 'outside',
      outside: { count: 2, firstIds: ['b', 'c'] },
      checks: {
        sports: { state: 'outside', outside: 1 },
        leagues: { state: 'unknown', reason: expect.stringContaining('does not state') },
        dates: { state: 'outside', outside: 1 },
        contentMode: { state: 'unknown', reason: expect.stringContaining('records do not carry it') },
        channels: { state: 'unknown' },
      },
    });
    // The /me digest is of its canonical JSON: key order does not change it.
    const reordered = newAttestor({ ...licence({}), document: { licence: { a: 2, z: 1, id: 'lic_1' } } }).attestation();
    expect(reordered.meSha256).toBe(attestation.meSha256);
    expect(attestation.meSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is inside when every stated dimension holds, unknown when /me could not be read; byte-string pages compare alike', () => {
    const inside = newAttestor(licence({ sports: ['Fútbol'], leagues: ['Liga Ñ'] }));
    inside.see([{ id: 'x', sport: Buffer.from('Fútbol').toString('latin1'), league: Buffer.from('Liga Ñ').toString('latin1') }], 'latin1');
    expect(inside.attestation()).toMatchObject({ result: 'inside', outside: { count: 0 } });
    const unread = newAttestor(null);
    unread.see([{ id: 'x', sport: 'Any' }], 'utf8');
    expect(unread.attestation()).toMatchObject({ result: 'unknown', meSha256: null, scope: null });
  });

  it('digests record ids sorted by their UTF-8 bytes, one per line, whichever form they came in', () => {
    const a = newAttestor(null);
    a.see([{ id: 'é' }, { id: 'z' }, { id: 'a' }], 'utf8');
    const b = newAttestor(null);
    b.see([{ id: Buffer.from('é').toString('latin1') }, { id: 'a' }, { id: 'z' }], 'latin1');
    const expected = createHash('sha256').update('a\nz\né\n').digest('hex');
    expect(a.recordIds()).toEqual({ count: 3, sha256: expected });
    expect(b.recordIds()).toEqual({ count: 3, sha256: expected });
    expect(idsDigest([])).toEqual({ count: 0, sha256: createHash('sha256').update('').digest('hex') });
  });
});

describe('the standalone verifier', () => {
  it('reads a CSV as RFC 4180 (quotes, commas and newlines in fields, a BOM, formula-guarded ids) across chunk boundaries', async () => {
    const dir = await tmp();
    const long = 'x'.repeat(3 << 20); // a field longer than a read chunk (1 MiB)
    const rows = [
      'id,sport,reasoning',
      `"'=1+1",Football,"he said ""go"", then\r\nleft"`,
      `plain,Tennis,${long}`,
      `"quo""ted",Golf,`,
      `é-id,"a,b",""`,
    ];
    const file = path.join(dir, 'f.csv');
    await writeFile(file, `\uFEFF${rows.join('\r\n')}\r\n`);
    const read = await readCsv(file);
    expect(read.records).toBe(4);
    expect(read.ids.map((id: string) => Buffer.from(id, 'latin1').toString('utf8'))).toEqual(['=1+1', 'plain', 'quo"ted', 'é-id']);
    expect(read.bytes).toBe((await readFile(file)).length);
    // The same without a final newline, and a file with no id column.
    await writeFile(file, rows.slice(0, 2).join('\n'));
    expect((await readCsv(file)).records).toBe(1);
    await writeFile(file, 'sport\nFootball\n');
    await expect(readCsv(file)).rejects.toThrow(/no "id" column/);
  });

  it('reads JSON Lines: a record a line, its ids as the digest takes them; a cut last line or a line that is not a record is named', async () => {
    const dir = await tmp();
    const file = path.join(dir, 'f.jsonl');
    await writeFile(file, '{"id":"a","sport":"Football"}\n{"id":"é-id","reasoning":"line\\nbreak"}\n');
    const read = await readJsonLines(file);
    expect(read).toMatchObject({ records: 2, bytes: (await readFile(file)).length });
    expect(read.ids.map((id: string) => Buffer.from(id, 'latin1').toString('utf8'))).toEqual(['a', 'é-id']);
    await writeFile(file, '');
    expect((await readJsonLines(file)).records).toBe(0);
    await writeFile(file, '{"id":"a"}\n{"id":"b"');
    await expect(readJsonLines(file)).rejects.toThrow(/last line does not end/);
    await writeFile(file, '{"id":"a"}\n[1]\n');
    await expect(readJsonLines(file)).rejects.toThrow(/line 2 is not a JSON object/);
  });

  it('runs with Node alone and says how to use it', async () => {
    const failed = await run(process.execPath, ['public/verify-picks-file.mjs']).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 2, stderr: expect.stringContaining('usage: node verify-picks-file.mjs <file> --keys') });
    // Node's own modules and its readers served beside it, nothing else: a recipient installs nothing.
    for (const file of ['public/verify-picks-file.mjs', 'public/picks-file-readers.mjs']) {
      const imports = [...(await readFile(file, 'utf8')).matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      expect(
        imports.filter((name) => !name.startsWith('node:') && name !== './picks-file-readers.mjs'),
        file,
      ).toEqual([]);
    }
  });
});
