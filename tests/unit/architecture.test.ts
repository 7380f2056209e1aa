import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BEGIN, END, LAYERS, layerDrawing } from '../../scripts/docs-layers.mjs';

/** The layers of lib/ (.dependency-cruiser.mjs, docs/architecture.md "The map") hold, and the check that holds them can fail. */

const run = promisify(execFile);
const depcruise = path.resolve('node_modules/.bin/depcruise');

describe('the layers of lib/', () => {
  it('place every folder and module of lib/ exactly once', () => {
    const entries = readdirSync('lib').map((name) => name.replace(/\.tsx?$/, ''));
    const placed = LAYERS.flatMap((layer) => layer.members);
    expect(new Set(placed).size).toBe(placed.length);
    expect([...new Set(entries)].sort()).toEqual([...placed].sort());
  });

  it('are drawn in docs/architecture.md as the rules state them', () => {
    const doc = readFileSync('docs/architecture.md', 'utf8');
    const drawn = doc.slice(doc.indexOf(BEGIN) + BEGIN.length, doc.indexOf(END)).trim();
    expect(drawn, 'run npm run docs:layers').toBe(layerDrawing());
  });

  it('keep in lib/vocabulary only words that several layers share: a word of one feature lives beside it', async () => {
    const { stdout } = await run(depcruise, ['lib', '--output-type', 'json'], { maxBuffer: 64 * 1024 * 1024 });
    const modules = (JSON.parse(stdout) as { modules: { source: string; dependencies: { resolved: string }[] }[] }).modules;
    const folder = (file: string) => /^lib\/([^/.]+)/.exec(file)?.[1] ?? file;
    const users = new Map<string, Set<string>>();
    for (const { source, dependencies } of modules)
      for (const { resolved } of dependencies)
        if (resolved.startsWith('lib/vocabulary/') && !source.startsWith('lib/vocabulary/'))
          users.set(resolved, (users.get(resolved) ?? new Set()).add(folder(source)));
    const words = readdirSync('lib/vocabulary').map((name) => `lib/vocabulary/${name}`);
    const lonely = words.filter(
      (file) =>
        (users.get(file)?.size ?? 0) < 2 &&
        !modules.some((m) => m.source.startsWith('lib/vocabulary/') && m.dependencies.some((d) => d.resolved === file)),
    );
    expect(lonely, 'used by one folder only: move it into that folder').toEqual([]);
  }, 30_000);

  it('fail the check when one feature folder imports a folder above it, naming the import', async () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'layers-'));
    try {
      for (const entry of ['lib', '.dependency-cruiser.mjs', 'tsconfig.json', 'package.json'])
        cpSync(entry, path.join(copy, entry), { recursive: true });
      symlinkSync(path.resolve('node_modules'), path.join(copy, 'node_modules'));
      // The module changed and what it imports (npm test's first step checks the whole tree).
      const check = () =>
        run(depcruise, ['lib/deliveries/limits.ts', '--output-type', 'err'], { cwd: copy }).then(
          () => 'passed',
          (error: { stdout: string }) => error.stdout,
        );
      expect(await check()).toBe('passed');
      // Deliveries sit below alerts: a delivery that reached up into the notification log would tie them in a circle.
      appendFileSync(path.join(copy, 'lib/deliveries/limits.ts'), "\nexport { notificationLog } from '../alerts/log';\n");
      const said = await check();
      expect(said).toContain('error layer-deliveries: lib/deliveries/limits.ts → lib/alerts/log.ts');
      expect(said).toMatch(/1 dependency violations \(1 errors/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the tests themselves', () => {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));

  it('keep their helpers in tests/support, and only specs in the suites’ folders', () => {
    const stray = [
      ...readdirSync('tests/e2e').filter((name) => !name.endsWith('.spec.ts') && name !== 'canary-key'),
      ...readdirSync('tests/contract').filter((name) => !name.endsWith('.test.ts')),
      ...readdirSync('tests/unit').filter((name) => !name.endsWith('.test.ts') && name !== 'fixtures'),
    ];
    expect(stray).toEqual([]);
  });

  it('are no file over 400 lines', () => {
    const long = walk('tests')
      .filter((file) => /\.tsx?$/.test(file) && !file.includes('/fixtures/'))
      .filter((file) => readFileSync(file, 'utf8').split('\n').length > 400);
    expect(long).toEqual([]);
  });

  it('open pages through page objects: one for every page of the portal, and no spec goes to a page by itself', () => {
    const pagesDir = 'tests/support/pages';
    const objects = readdirSync(pagesDir)
      .map((name) => readFileSync(path.join(pagesDir, name), 'utf8'))
      .join('\n');
    const paths = new Set(
      [...objects.matchAll(/(?:super\(page, |fixedAt\()(?:'([^']+)'|`([^`]+)`|path)/g)].map(([, plain, template]) =>
        (plain ?? template ?? '').replace(/\$\{[^}]+\}/g, '[x]'),
      ),
    );
    const routes = walk('app')
      .filter((file) => file.endsWith('/page.tsx'))
      .map((file) =>
        `/${path
          .dirname(file)
          .split('/')
          .slice(1)
          .filter((part) => !part.startsWith('('))
          .join('/')}`.replace(/\[[^\]]+\]/g, '[x]'),
      );
    const records = ['/picks', '/results']; // RecordsPage takes its path
    expect(routes.filter((route) => !paths.has(route) && !records.includes(route))).toEqual([]);
    const specs = readdirSync('tests/e2e').filter((name) => name.endsWith('.spec.ts'));
    const byHand = specs.flatMap((name) =>
      readFileSync(path.join('tests/e2e', name), 'utf8')
        .split('\n')
        .filter((line) => /\.goto\(|getByTestId\('records-table'\)/.test(line) && !line.includes('// not the portal'))
        .map((line) => `${name}: ${line.trim()}`),
    );
    expect(byHand).toEqual([]);
  });
});
