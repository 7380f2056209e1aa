import 'server-only';
import { createHash } from 'node:crypto';
import type { PortalConfig } from '../config';
import type { Store } from '../store';
import { readMeta, writeMeta } from '../store/meta';
import { recordAudit } from './record';

/**
 * Settings are the environment a portal starts with. At each start the settings that shape what the portal
 * does are compared with the last ones recorded in the store; what changed is audited as `settings.change`
 * by `cli` (the operator who started it). Secrets are never written: only that they changed.
 */

const PLAIN = [
  'PICKS_API_BASE_URL',
  'NEXTAUTH_URL',
  'SESSION_MAX_HOURS',
  'MAX_EXPORTS_PER_USER',
  'MAX_CONCURRENT_EXPORTS',
  'PICKS_API_MAX_CONCURRENCY',
  'PICKS_API_TIMEOUT_MS',
  'PAGE_UPSTREAM_WAIT_MS',
  'PICKS_API_MAX_RETRIES',
  'PICKS_ME_CACHE_SECONDS',
  'AUDIT_RETENTION_DAYS',
  'ALERT_EMAIL_FROM',
  'ALERT_HOLD_SECONDS',
] as const;
// SMTP_URL may hold the mail server's password: recorded as changed, never as written.
const SECRET = ['PICKS_API_KEY', 'AUTH_SECRET', 'NEXTAUTH_SECRET', 'SMTP_URL'] as const;

export function settingsSnapshot(config: PortalConfig): Record<string, string> {
  const snapshot: Record<string, string> = {};
  for (const key of PLAIN) snapshot[key] = String(config[key] ?? '');
  snapshot.PORTAL_IMAGE_ORIGINS = config.PORTAL_IMAGE_ORIGINS.join(',');
  snapshot.OIDC_ISSUER = config.oidc?.issuer ?? '';
  // Secrets as digests, compared only: what is recorded for them is "changed".
  for (const key of SECRET)
    snapshot[key] = createHash('sha256')
      .update(`portal-settings:${config[key] ?? ''}`)
      .digest('hex');
  return snapshot;
}

export async function recordSettingsChange(store: Store, config: PortalConfig): Promise<Record<string, string> | null> {
  const now = settingsSnapshot(config);
  const stored = await readMeta(store.db, 'settings');
  const before = stored ? (JSON.parse(stored) as Record<string, string>) : {};
  const changed: Record<string, string> = {};
  for (const [key, value] of Object.entries(now)) {
    if (before[key] === value) continue;
    changed[key] = (SECRET as readonly string[]).includes(key) ? (before[key] === undefined ? 'set' : 'changed') : value;
  }
  if (Object.keys(changed).length === 0) return null;
  await recordAudit({
    actor: 'cli',
    action: 'settings.change',
    target: stored ? 'changed at start' : 'first start',
    filters: changed,
    outcome: 'complete',
  });
  await writeMeta(store.db, 'settings', JSON.stringify(now));
  return changed;
}
