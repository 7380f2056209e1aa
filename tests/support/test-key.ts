import { chmodSync, copyFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The tests' signing key (a fixture, never a real one) as the portal accepts a key file: owner-only. Git keeps
 * files 0644, and the portal refuses a key others can read (lib/proof/keys.ts), so tests use a private copy. Every
 * test process makes it as it starts while others may be reading it: it is written beside and renamed into place,
 * so a reader never sees it half written.
 */
export function ownerOnlyTestKey(): string {
  const copy = path.join(tmpdir(), `picks-test-signing-key-${process.getuid?.() ?? 0}.pem`);
  const writing = `${copy}.${process.pid}`;
  copyFileSync(path.resolve(import.meta.dirname, 'test-signing-key.pem'), writing);
  chmodSync(writing, 0o600);
  renameSync(writing, copy);
  return copy;
}
