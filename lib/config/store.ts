import path from 'node:path';
import { z } from 'zod';

/**
 * Where the portal keeps its state. Read by the portal's configuration (lib/config/) and by the
 * command-line tools, which need no upstream settings. A wrong value names the variable.
 */

const postgresUrl = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional()
  .refine((value) => value === undefined || URL.canParse(value), 'must be a URL like postgres://user:password@host:5432/portal')
  .refine(
    (value) => value === undefined || !URL.canParse(value) || /^postgres(ql)?:$/.test(new URL(value).protocol),
    'must start with postgres:// or postgresql:// (leave it unset for the embedded database)',
  )
  .refine((value) => value === undefined || !URL.canParse(value) || new URL(value).hostname !== '', 'must name a host');

const orDefault = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value) => value.trim() || fallback);

export const storeSettingsShape = {
  // Unset: the embedded database in PORTAL_DATA_DIR. Set: every instance shares this PostgreSQL.
  DATABASE_URL: postgresUrl,
  PORTAL_DATA_DIR: orDefault('.data'),
  // A users file from before the store: imported once on first start, then left untouched (docs/operations.md).
  PORTAL_USERS_FILE: orDefault('.data/users.json'),
};

const storeSettingsSchema = z.object(storeSettingsShape);
export type StoreSettings = z.infer<typeof storeSettingsSchema>;

export type StoreTarget = { engine: 'sqlite'; file: string; label: string } | { engine: 'postgres'; url: string; label: string };

export function parseStoreSettings(env: Record<string, string | undefined>): StoreSettings {
  const result = storeSettingsSchema.safeParse(env);
  if (result.success) return result.data;
  throw new Error(result.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`).join('\n'));
}

/** The engine and where it is; `label` names it without a password, for messages and logs. */
export function storeTarget(settings: StoreSettings): StoreTarget {
  if (settings.DATABASE_URL) {
    const url = new URL(settings.DATABASE_URL);
    return { engine: 'postgres', url: settings.DATABASE_URL, label: `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}` };
  }
  const file = path.resolve(settings.PORTAL_DATA_DIR, 'portal.sqlite');
  return { engine: 'sqlite', file, label: `the embedded database ${file}` };
}
