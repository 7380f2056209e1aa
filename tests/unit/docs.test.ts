import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '@/lib/config';

/** The documents stay true to the tree: their links resolve, and every setting the configuration reads is documented. */

const root = path.resolve(import.meta.dirname, '../..');
const documents = [
  'README.md',
  'bench/README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...readdirSync(path.join(root, 'docs/adr'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/adr/${f}`),
];

describe('documents', () => {
  it('link only to files that exist', () => {
    const broken: string[] = [];
    for (const doc of documents) {
      const text = readFileSync(path.join(root, doc), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const file = target!.split('#')[0]!;
        if (!existsSync(path.resolve(root, path.dirname(doc), file))) broken.push(`${doc} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('name every variable the configuration reads, in docs/configuration.md and .env.example', () => {
    const configuration = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
    const example = readFileSync(path.join(root, '.env.example'), 'utf8');
    expect(CONFIG_VARIABLES.length).toBeGreaterThan(40);
    expect(CONFIG_VARIABLES.filter((name) => !configuration.includes(`\`${name}\``))).toEqual([]);
    expect(CONFIG_VARIABLES.filter((name) => !new RegExp(`^#? ?${name}=`, 'm').test(example))).toEqual([]);
  });

  it('keep the README short, and at least six decisions on record', () => {
    expect(readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(200);
    expect(documents.filter((doc) => /^docs\/adr\/\d{4}-/.test(doc)).length).toBeGreaterThanOrEqual(6);
  });
});
