import { mkdtempSync, statSync, chmodSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '@/lib/config';
import { openSecret, sealSecret } from '@/lib/deliveries/secrets';

/**
 * The key that seals delivery and webhook secrets, out of the box (issue 72): on the embedded database the portal
 * makes its own on first start, owner-only in the data directory, and reads the same one after a restart, so what
 * was sealed before opens after; DELIVERY_SECRET_KEY overrides it; with DATABASE_URL only the variable gives one.
 */

const base = { PICKS_API_BASE_URL: 'http://127.0.0.1:4010', PICKS_API_KEY: 'k', NODE_ENV: 'test' };

describe('the secret-sealing key', () => {
  it('is made once in a clean data directory, owner-only, and is the same after a restart', () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'secret-key-')), 'data');
    const first = parseConfig({ ...base, PORTAL_DATA_DIR: dir });
    expect(first.secretKey).toEqual({ source: 'file', file: path.join(dir, 'delivery-secret.key'), made: true });
    expect(first.DELIVERY_SECRET_KEY!.length).toBeGreaterThanOrEqual(32);
    expect(statSync(first.secretKey.file!).mode & 0o777).toBe(0o600);
    const sealed = sealSecret('{"password":"pw"}', first.DELIVERY_SECRET_KEY!, 'sftp\0host');
    const again = parseConfig({ ...base, PORTAL_DATA_DIR: dir });
    expect(again.secretKey.made).toBe(false);
    expect(again.DELIVERY_SECRET_KEY).toBe(first.DELIVERY_SECRET_KEY);
    expect(openSecret(sealed, again.DELIVERY_SECRET_KEY!, 'sftp\0host')).toBe('{"password":"pw"}');
  });

  it('gives way to DELIVERY_SECRET_KEY, is never made for PostgreSQL, and refuses a file others can read', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'secret-key-'));
    const given = parseConfig({ ...base, PORTAL_DATA_DIR: dir, DELIVERY_SECRET_KEY: 'g'.repeat(40) });
    expect(given.secretKey.source).toBe('variable');
    expect(given.DELIVERY_SECRET_KEY).toBe('g'.repeat(40));
    const shared = parseConfig({ ...base, PORTAL_DATA_DIR: dir, DATABASE_URL: 'postgres://portal@127.0.0.1/portal' });
    expect(shared.secretKey.source).toBe('none');
    expect(shared.DELIVERY_SECRET_KEY).toBeUndefined();
    const file = path.join(dir, 'delivery-secret.key');
    writeFileSync(file, 'x'.repeat(43));
    chmodSync(file, 0o644);
    expect(() => parseConfig({ ...base, PORTAL_DATA_DIR: dir })).toThrow(
      /can be read or written by others \(mode 0644\): make it owner-only/,
    );
  });
});

describe('targets beside the sandbox', () => {
  it('reach loopback as shipped, and nothing further in, unless DELIVERY_ALLOW_PRIVATE_TARGETS says otherwise', async () => {
    const { pinTarget, webhookUrlProblem } = await import('@/lib/deliveries/targets');
    const { readConnection } = await import('@/lib/deliveries/pg-connection');
    const dir = mkdtempSync(path.join(tmpdir(), 'targets-'));
    expect(parseConfig({ ...base, PORTAL_DATA_DIR: dir, PORTAL_SANDBOX: '1' }).DELIVERY_ALLOW_PRIVATE_TARGETS).toBe('loopback');
    expect(
      parseConfig({ ...base, PORTAL_DATA_DIR: dir, PORTAL_SANDBOX: '1', DELIVERY_ALLOW_PRIVATE_TARGETS: '0' })
        .DELIVERY_ALLOW_PRIVATE_TARGETS,
    ).toBe(false);
    expect(parseConfig({ ...base, PORTAL_DATA_DIR: dir }).DELIVERY_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(parseConfig({ ...base, PORTAL_DATA_DIR: dir, DELIVERY_ALLOW_PRIVATE_TARGETS: '1' }).DELIVERY_ALLOW_PRIVATE_TARGETS).toBe(true);

    expect(await pinTarget('127.0.0.1', 'loopback')).toMatchObject({ ok: true, address: '127.0.0.1' });
    expect(await pinTarget('::1', 'loopback')).toMatchObject({ ok: true });
    expect(await pinTarget('10.1.2.3', 'loopback')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('set DELIVERY_ALLOW_PRIVATE_TARGETS=1'),
    });
    expect(await pinTarget('127.0.0.1', false)).toMatchObject({ ok: false });
    expect(webhookUrlProblem('http://127.0.0.1:9000/hook', 'loopback')).toBeNull();
    expect(webhookUrlProblem('http://10.1.2.3/hook', 'loopback')).toMatch(/with DELIVERY_ALLOW_PRIVATE_TARGETS=1\)$/);
    expect(readConnection('postgres://loader@127.0.0.1/partner?sslmode=disable', 'loopback')).not.toHaveProperty('problem');
    expect(readConnection('postgres://loader@10.1.2.3/partner?sslmode=disable', 'loopback')).toHaveProperty('problem');
  });
});
