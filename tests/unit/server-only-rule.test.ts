import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every portal module that reads the partner key (or the config that holds it) is marked server-only. */

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return ['node_modules', '.next', 'tests', 'sandbox', 'scripts'].includes(name) ? [] : sources(full);
    return /\.(ts|tsx)$/.test(name) ? [full] : [];
  });
}

const files = [...sources('app'), ...sources('lib'), ...sources('components'), 'instrumentation.ts'];

describe('the partner key stays on the server', () => {
  it('is read from the environment by exactly one module, and every module touching it imports server-only', () => {
    const envReaders = files.filter((file) => /process\.env(?!\.NEXT_RUNTIME|\.NEXT_PHASE|\.NODE_ENV)/.test(readFileSync(file, 'utf8')));
    expect(envReaders).toEqual(['lib/config/index.ts']);
    const touching = files.filter((file) => readFileSync(file, 'utf8').includes('PICKS_API_KEY'));
    expect(touching.length).toBeGreaterThan(0);
    for (const file of touching) expect(readFileSync(file, 'utf8'), file).toMatch(/^import 'server-only';/m);
  });

  it('every module that imports the config or the client is server-only or a server entry point', () => {
    const importsSecrets = (text: string) =>
      /from '(\.\.?\/|@\/lib\/)(config|picks-api)(\/index)?'/.test(text) || /from '@\/lib\/config'|from '@\/lib\/picks-api'/.test(text);
    const offenders = files.filter((file) => {
      const text = readFileSync(file, 'utf8');
      if (!importsSecrets(text) || text.includes("import 'server-only'")) return false;
      // Server entry points Next never ships to a browser: pages/layouts without 'use client', route handlers, instrumentation.
      return text.startsWith("'use client'") || (file.startsWith('components/') && !text.includes('async function'));
    });
    expect(offenders).toEqual([]);
  });

  it('no client component imports server code', () => {
    const clientFiles = files.filter((file) => readFileSync(file, 'utf8').startsWith("'use client'"));
    expect(clientFiles.length).toBeGreaterThan(5);
    for (const file of clientFiles) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(
        /from '@\/lib\/(config|picks-api|auth\/options|export\/stream|coverage\/(run|respond)|http(\/[a-z-]+)?)'/,
      );
    }
  });
});
