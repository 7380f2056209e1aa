import fs from 'node:fs';
import path from 'node:path';

/**
 * The portal's architecture, checked by `npx depcruise` in `npm test` (docs/architecture.md, "Layers").
 * A violation fails the suite naming the import that breaks the rule.
 */

/** lib/ folders and modules, lowest first: a module may import its own layer or a lower one, never a higher one. */
const LAYERS = [
  // 0: words, small tools and the process holder: nothing of the portal's state, no store
  [
    'lib/vocabulary',
    'lib/errors',
    'lib/plural',
    'lib/time',
    'lib/safe-json',
    'lib/abort',
    'lib/process-state',
    'lib/draining',
    'lib/waits',
    'lib/log',
    'lib/net',
    'lib/config',
  ],
  // 1: the store
  ['lib/store'],
];

/** Portal modules marked server-only (an `import 'server-only'` line), as regular expressions of their paths. */
const sources = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sources(full) : /\.tsx?$/.test(entry.name) ? [full] : [];
  });
const SERVER_ONLY = ['lib', 'app', 'components']
  .flatMap(sources)
  .filter((file) => /^import 'server-only';$/m.test(fs.readFileSync(file, 'utf8')))
  .map((file) => `^${file.replace(/[.()[\]]/g, '\\$&')}$`);

export default {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import circle: one of these modules must stop importing the other (move what both need down a layer).',
      from: { path: '^(lib|app|components|scripts)/' },
      to: { circular: true },
    },
    {
      name: 'store-at-the-bottom',
      severity: 'error',
      comment:
        'lib/store imports only itself and the lowest layer (errors, time, config, log, process state): a rule or a vocabulary it needs moves down.',
      from: { path: '^lib/store/' },
      to: {
        path: '^(lib|app|components|scripts)/',
        pathNot: [`^(${LAYERS.flat().join('|')})([./]|$)`],
      },
    },
    {
      name: 'base-at-the-base',
      severity: 'error',
      comment: 'The base layer (vocabulary, errors, config, log, the process holder…) imports only the base layer.',
      from: { path: `^(${LAYERS[0].join('|')})([./]|$)` },
      to: {
        path: '^(lib|app|components|scripts)/',
        pathNot: [`^(${LAYERS[0].join('|')})([./]|$)`],
      },
    },
    {
      name: 'lib-not-up-into-the-app',
      severity: 'error',
      comment: 'lib/ is below app/, components/ and scripts/: it never imports them.',
      from: { path: '^lib/' },
      to: { path: '^(app|components|scripts)/' },
    },
    {
      name: 'components-stay-client-safe',
      severity: 'error',
      comment:
        'components/ never imports a server-only module (one that imports server-only) except for its types: data is read in app/, components show it.',
      from: { path: '^components/' },
      to: { path: [...SERVER_ONLY, 'node_modules/server-only/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'sandbox-stands-apart',
      severity: 'error',
      comment: 'The sandbox is a separate upstream: the portal never imports it (scripts/start.ts starts it as a process).',
      from: { pathNot: '^(sandbox|tests|bench)/' },
      to: { path: '^sandbox/' },
    },
    {
      name: 'no-tests-in-the-product',
      severity: 'error',
      comment: 'Product code never imports test code.',
      from: { path: '^(lib|app|components|scripts)/' },
      to: { path: '^tests/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(\\.next|bench-results|test-results)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
