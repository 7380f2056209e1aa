import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIGRATION_NAMES, MIGRATIONS } from '@/lib/store/migrations';

/** Migrations one a file (lib/store/migrations/): the list the store applies is exactly the folder, in order. */

describe('migrations', () => {
  it('lists every file of the folder, by its file name, numbered without gaps', () => {
    const files = readdirSync('lib/store/migrations')
      .filter((name) => /^\d{4}_[a-z_]+\.ts$/.test(name))
      .map((name) => name.replace(/\.ts$/, ''))
      .sort();
    expect(Object.keys(MIGRATIONS)).toEqual(files);
    expect(MIGRATION_NAMES).toEqual(files);
    expect(files.map((name) => Number(name.slice(0, 4)))).toEqual(files.map((_, i) => i + 1));
    expect(files.length).toBeGreaterThanOrEqual(18);
  });

  it('keeps each migration under its own name (no file exports another’s)', () => {
    for (const [name, migration] of Object.entries(MIGRATIONS)) expect(typeof migration.up, name).toBe('function');
    expect(new Set(Object.values(MIGRATIONS)).size).toBe(Object.keys(MIGRATIONS).length);
  });
});
