import { chmodSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The tests' signing key (a fixture, never a real one) as the portal accepts a key file: owner-only. Git keeps
 * files 0644, and the portal refuses a key others can read (lib/proof/keys.ts), so tests use a private copy.
 */
export function ownerOnlyTestKey(): string {
  const copy = path.join(tmpdir(), `picks-test-signing-key-${process.getuid?.() ?? 0}.pem`);
  copyFileSync(path.resolve(import.meta.dirname, 'test-signing-key.pem'), copy);
  chmodSync(copy, 0o600);
  return copy;
}
