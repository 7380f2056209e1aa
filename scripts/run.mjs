import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * `node --conditions=react-server scripts/run.mjs <command> [args…]`: how the portal's commands (`npm start`, `npm run
 * users`, `export`, `audit`, `proof`, `backup`, `restore`, `index`) start. The command's TypeScript and the project's code it
 * imports are bundled into one module by esbuild, packages are imported from where Node resolves them
 * from here, and Node runs the module itself. Run through tsx's loader instead, each of the few hundred modules the
 * store's libraries are made of passes through the loader's thread, which costs a command more CPU than bundling
 * does (docs/adr/0018-commands-bundled-at-start.md says by how much). Nothing is written inside the install (it may be read-only).
 */

const COMMANDS = new Set(['start', 'users', 'export', 'audit', 'proof', 'backup', 'index']);
const root = fileURLToPath(new URL('..', import.meta.url));
const [name, ...args] = process.argv.slice(2);
if (!name || !COMMANDS.has(name)) {
  console.error(`usage: node scripts/run.mjs <${[...COMMANDS].join('|')}> [arguments]`);
  process.exit(2);
}
const entry = path.join(root, 'scripts', `${name}.ts`);

/**
 * Each source file keeps its own `import.meta.url` (a worker is started from a file beside it, e.g.
 * lib/export/parquet-worker.ts): in the bundle it would otherwise be the bundle's.
 */
const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(on) {
    on.onLoad({ filter: /\.([cm]?[jt]s|tsx)$/ }, async ({ path: file }) => {
      if (file.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await readFile(file, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const loader = file.endsWith('.tsx') ? 'tsx' : /\.[cm]?ts$/.test(file) ? 'ts' : 'js';
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href)), loader };
    });
  },
};

/** Packages stay outside the bundle, imported by the address Node resolves them to from the project (with its conditions). */
const packagesWhereNodeFindsThem = {
  name: 'packages-where-node-finds-them',
  setup(on) {
    on.onResolve({ filter: /^[^./]/ }, ({ path: specifier }) => {
      if (specifier.startsWith('@/')) return undefined; // the project's own alias (tsconfig.json)
      if (isBuiltin(specifier)) return { path: specifier, external: true };
      return { path: import.meta.resolve(specifier), external: true };
    });
  },
};

const result = await build({
  entryPoints: [entry],
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['react-server'],
  sourcemap: 'inline',
  sourceRoot: pathToFileURL(root).href, // a stack names the source file wherever the module is imported from
  write: false,
  logLevel: 'error',
  plugins: [ownImportMetaUrl, packagesWhereNodeFindsThem],
});
// Written to a directory of its own (mode 0700, a new name each time: nobody else can put a file there first),
// removed when the command ends; imports inside it are absolute, so it runs from anywhere.
const dir = mkdtempSync(path.join(tmpdir(), `portal-${name}-`));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, `${name}.mjs`);
writeFileSync(file, result.outputFiles[0].contents, { mode: 0o600 });
// The command reads its arguments as if it had been started itself.
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(file).href);
