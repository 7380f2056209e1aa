import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '@/lib/config';
import { SETTING_GROUPS } from '@/lib/config/groups';
import { OIDC_VARIABLES } from '@/lib/config/oidc';

/** Read before the configuration is, by the HTTP server itself (scripts/portal-server.mjs). */
const READ_OUTSIDE_THE_SCHEMA: Record<string, string[]> = { server: ['PORTAL_LISTEN_HOST'] };

/** The documents stay true to the tree: their links resolve, and every setting the configuration reads is documented. */

const root = path.resolve(import.meta.dirname, '../..');
const sourceFiles = (dir: string): string[] =>
  readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(`${dir}/${entry.name}`) : /\.tsx?$/.test(entry.name) ? [path.join(root, dir, entry.name)] : [],
  );
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

  it('name only source files that exist (a newcomer follows them from a page to the upstream)', () => {
    const missing: string[] = [];
    // What git ignores is made by runs (screenshots, bench results): named, but not in a fresh clone.
    const ignored = readFileSync(path.join(root, '.gitignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim().replace(/\/$/, ''))
      .filter((line) => line.includes('/') && !line.startsWith('!'));
    for (const doc of documents) {
      const text = readFileSync(path.join(root, doc), 'utf8');
      for (const [, named] of text.matchAll(/`((?:lib|app|components|scripts|sandbox|bench|tests|docs)\/[^`\s*<…]+?)\/?`/g)) {
        if (ignored.some((entry) => named!.startsWith(entry))) continue;
        if (!existsSync(path.join(root, named!))) missing.push(`${doc} → ${named}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('name every variable the configuration reads, in docs/configuration.md and .env.example', () => {
    const configuration = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
    const example = readFileSync(path.join(root, '.env.example'), 'utf8');
    expect(CONFIG_VARIABLES.length).toBeGreaterThan(40);
    expect(CONFIG_VARIABLES.filter((name) => !configuration.includes(`\`${name}\``))).toEqual([]);
    expect(CONFIG_VARIABLES.filter((name) => !new RegExp(`^#? ?${name}=`, 'm').test(example))).toEqual([]);
  });

  it('give each group of settings its own section in docs/configuration.md, naming exactly its variables', () => {
    const configuration = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
    const sections = new Map(
      configuration
        .split(/^## /m)
        .slice(1)
        .map((section) => [section.slice(0, section.indexOf('\n')).toLowerCase(), section] as const),
    );
    const groups: [string, readonly string[]][] = [
      ...Object.entries(SETTING_GROUPS).map(([name, shape]) => [name, Object.keys(shape)] as [string, string[]]),
      ['single sign-on', OIDC_VARIABLES],
    ];
    expect([...sections.keys()]).toEqual(groups.map(([name]) => name));
    for (const [name, variables] of groups) {
      const named = [...sections.get(name)!.matchAll(/^\| `([A-Z_]+)`(?:[^|]*?`([A-Z_]+)`)?(?:[^|]*?`([A-Z_]+)`)?/gm)].flatMap((m) =>
        m.slice(1).filter(Boolean),
      );
      expect(new Set(named), name).toEqual(new Set([...variables, ...(READ_OUTSIDE_THE_SCHEMA[name] ?? [])]));
    }
  });

  it('map every lib/ folder and every background job in docs/architecture.md', () => {
    const architecture = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
    const folders = readdirSync(path.join(root, 'lib'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `lib/${entry.name}/`);
    expect(folders.length).toBeGreaterThanOrEqual(20);
    expect(folders.filter((folder) => !architecture.includes(`\`${folder}\``))).toEqual([]);
    const jobs = sourceFiles('lib').flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/registerJob\(\{\s*name: '([a-z-]+)'/g)].map((m) => m[1]!),
    );
    expect(jobs.length).toBeGreaterThanOrEqual(9);
    expect(jobs.filter((job) => !architecture.includes(`| \`${job}\``))).toEqual([]);
  });

  it('index every decision in docs/adr/README.md', () => {
    const index = readFileSync(path.join(root, 'docs/adr/README.md'), 'utf8');
    const decisions = readdirSync(path.join(root, 'docs/adr')).filter((file) => /^\d{4}-.+\.md$/.test(file) && !file.startsWith('0000'));
    expect(decisions.filter((file) => !index.includes(`](${file})`))).toEqual([]);
  });

  it('keep the README short, and at least six decisions on record', () => {
    expect(readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(200);
    expect(documents.filter((doc) => /^docs\/adr\/\d{4}-/.test(doc)).length).toBeGreaterThanOrEqual(6);
  });
});
