import fs from 'node:fs';
import path from 'node:path';

/**
 * The portal's architecture, checked by `npx depcruise` in `npm test` (docs/architecture.md, "Layers").
 * A violation fails the suite naming the import that breaks the rule.
 */

/**
 * The layers of lib/, lowest first (docs/architecture.md, "The map", is drawn from this list by
 * `npm run docs:layers`). A folder or module of one layer imports itself and the layers below it, never a
 * layer above and never another member of its own layer: every import points down, so no folder-level
 * circle can form. A new folder or module of lib/ takes its place here (tests/unit/architecture.test.ts).
 */
export const LAYERS = [
  {
    name: 'words',
    says: 'shared words and small tools with no state',
    members: ['vocabulary', 'plural', 'nearest', 'time', 'safe-json', 'abort', 'process-state', 'theme', 'sport-leagues'],
  },
  {
    name: 'process',
    says: 'the logger, bounded waits, the request signal, worker threads',
    members: ['log', 'waits', 'request-signal', 'worker-threads'],
  },
  { name: 'errors', says: 'AppError: every failure with its code, status and words', members: ['errors'] },
  { name: 'edges of the process', says: 'addresses and bodies, strict queries, draining', members: ['net', 'strict-query', 'draining'] },
  { name: 'configuration', says: 'the validated settings, the only reader of the environment', members: ['config'] },
  { name: 'store', says: 'the only code that persists state, on SQLite or PostgreSQL', members: ['store'] },
  { name: 'jobs', says: 'the job registry, leases, the retry queue, signals features publish', members: ['jobs'] },
  { name: 'platform', says: 'walk slots and metrics', members: ['walk-slots', 'metrics'] },
  { name: 'upstream client', says: 'the Picks API: client, walks, gate, schemas, filters, the licence', members: ['picks-api'] },
  {
    name: 'upstream views',
    says: 'paging, date presets, signatures, health probes',
    members: ['paging', 'date-presets', 'proof', 'health'],
  },
  { name: 'records', says: 'summaries, pages by number, the index of the licensed set and its search', members: ['records'] },
  { name: 'audit', says: 'the audit trail, its sealing and manifests', members: ['audit'] },
  { name: 'people', says: 'users, roles, sign-in, the one rule for who may act', members: ['auth'] },
  { name: 'files', says: 'CSV, JSON and Parquet files; preferences', members: ['export', 'preferences'] },
  { name: 'history', says: 'record history and coverage reports', members: ['history', 'coverage'] },
  { name: 'tokens', says: 'scope, limits, use', members: ['tokens'] },
  { name: 'events', says: 'the stream’s shape, hash chain, reads, tail, checkpoints', members: ['events'] },
  { name: 'change feed', says: 'the poller, reconciliation, the changes file', members: ['changes'] },
  { name: 'feed health', says: 'each sport’s health, the watchdog', members: ['feed-health'] },
  { name: 'deliveries', says: 'scheduled deliveries, destinations, runs', members: ['deliveries'] },
  { name: 'alerts', says: 'they listen to what deliveries, feed health and the feed publish', members: ['alerts'] },
  { name: 'API v1', says: 'the partner API served before Next: router, lists, search, events, its OpenAPI document', members: ['api-v1'] },
  { name: 'assistants', says: 'the MCP server: tools that read through API v1', members: ['mcp'] },
  { name: 'consumers', says: 'consumer webhooks; the command palette’s finder', members: ['webhooks', 'find'] },
  { name: 'documents', says: 'the portal API’s OpenAPI document', members: ['openapi'] },
  { name: 'HTTP edge', says: 'what reads a request or a session and writes a response; the request policy', members: ['http'] },
  { name: 'start', says: 'starting and stopping the process’s jobs', members: ['start'] },
];

const member = (names) => `^lib/(${names.join('|')})([./]|$)`;
const layerRules = LAYERS.map((layer, i) => ({
  name: `layer-${layer.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`,
  severity: 'error',
  comment: `${layer.name} (lib/${layer.members.join(', lib/')}) imports only itself and the layers below it (LAYERS in .dependency-cruiser.mjs): what both sides need moves down, or the lower side publishes a signal (lib/jobs/signals.ts).`,
  from: { path: member(layer.members) },
  to: {
    path: '^lib/',
    pathNot: [...(i > 0 ? [member(LAYERS.slice(0, i).flatMap((l) => l.members))] : []), '^lib/$1([./]|$)'],
  },
}));

/** Portal modules marked server-only (an `import 'server-only'` line), as regular expressions of their paths. */
const sources = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sources(full) : /\.tsx?$/.test(entry.name) ? [full] : [];
  });
const SERVER_ONLY = ['lib', 'app', 'components']
  .filter((dir) => fs.existsSync(dir))
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
    ...layerRules,
    {
      name: 'sessions-and-requests-at-the-edge',
      severity: 'error',
      comment:
        'Only the HTTP edge (lib/http) reads a request’s headers, cookies or session: a feature takes who acts as a value (PortalSession, lib/auth/principal.ts).',
      from: { path: '^lib/', pathNot: '^lib/(http|auth)/' },
      to: { path: 'node_modules/(next/(headers|navigation|server)|next-auth)([./]|$)', dependencyTypesNot: ['type-only'] },
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
