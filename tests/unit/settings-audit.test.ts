import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { recordSettingsChange } from '@/lib/audit/settings';
import { parseConfig } from '@/lib/config';
import { closeStore, getStore } from '@/lib/store';
import { readAudit } from '@/lib/store/audit';
import { storeEngines, storeEnv } from '../support/store-engines';

/** Settings changes between starts are audited, secrets only as "changed". */

const base = {
  PICKS_API_BASE_URL: 'https://api.example.com',
  PICKS_API_KEY: 'first-secret-key-123',
  AUTH_SECRET: 'a'.repeat(40),
  NEXTAUTH_URL: 'https://portal.example.com',
};
afterAll(() => closeStore());

describe.each(storeEngines())('settings changes on $name', (engine) => {
  beforeEach(async () => {
    await closeStore();
    Object.assign(process.env, storeEnv(await engine.fresh()));
  });

  it('records the first start, nothing when unchanged, then only what changed, never a secret', async () => {
    const store = await getStore();
    const first = await recordSettingsChange(store, parseConfig(base));
    expect(first).toMatchObject({ MAX_EXPORTS_PER_USER: '2', PICKS_API_KEY: 'set', PICKS_API_BASE_URL: 'https://api.example.com' });
    expect(await recordSettingsChange(store, parseConfig(base))).toBeNull();
    const changed = await recordSettingsChange(
      store,
      parseConfig({ ...base, MAX_EXPORTS_PER_USER: '3', PICKS_API_KEY: 'second-secret-key-456' }),
    );
    expect(changed).toEqual({ MAX_EXPORTS_PER_USER: '3', PICKS_API_KEY: 'changed' });
    const entries = [];
    for await (const entry of readAudit(store.db, { action: 'settings.change' })) entries.push(entry);
    expect(entries.map((entry) => [entry.actor, entry.target])).toEqual([
      ['cli', 'first start'],
      ['cli', 'changed at start'],
    ]);
    const all = JSON.stringify(entries);
    expect(all).not.toContain('first-secret-key-123');
    expect(all).not.toContain('second-secret-key-456');
    expect(all).not.toContain('a'.repeat(40));
  });

  it('records a new mail server as changed, never its address with the password in it', async () => {
    const store = await getStore();
    await recordSettingsChange(store, parseConfig({ ...base, SMTP_URL: 'smtps://alerts:mail-password-1@smtp.example.com:465' }));
    const changed = await recordSettingsChange(
      store,
      parseConfig({ ...base, SMTP_URL: 'smtps://alerts:mail-password-2@smtp.example.com:465' }),
    );
    expect(changed).toEqual({ SMTP_URL: 'changed' });
    const entries = [];
    for await (const entry of readAudit(store.db, { action: 'settings.change' })) entries.push(entry);
    expect(JSON.stringify(entries)).not.toMatch(/mail-password|smtp\.example/);
  });
});
