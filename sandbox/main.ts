import { z } from 'zod';
import { createSandbox } from './server';

/** `npm run sandbox`: the sandbox upstream on its own. Variables are validated like the portal's. */

const env = z
  .object({
    SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
    SANDBOX_HOST: z.string().default('127.0.0.1'),
    SANDBOX_FULL_KEY: z
      .string()
      .regex(/^[\x21-\x7e]{8,}$/, 'must be at least 8 printable characters without spaces')
      .optional(),
    SANDBOX_PICKS: z.coerce.number().int().min(1).max(2_000_000).default(8000),
    SANDBOX_SEED: z.coerce.number().int().default(20261122),
    SANDBOX_RATE_LIMIT: z.coerce.number().int().min(0).default(600),
    SANDBOX_RATE_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
    SANDBOX_PAGE_SIZE: z.coerce.number().int().min(1).max(200).default(50),
    SANDBOX_PICK_SHAPE: z.enum(['wrapped', 'bare']).default('wrapped'),
    SANDBOX_NOW: z.iso.datetime().optional(),
    // Test-only controls under /__sandbox/ (clock, retractions, edits): for end-to-end tests, never a real upstream.
    SANDBOX_TEST_HOOKS: z.enum(['', '0', '1']).default(''),
    /** `npm start` says in a line what the sandbox is; on its own it lists its keys too. */
    SANDBOX_BRIEF: z.enum(['', '0', '1']).default(''),
    // 'offset': cursors count the records before them, as some real upstreams' do (tests of walks that must settle).
    SANDBOX_CURSORS: z.enum(['position', 'offset']).default('position'),
    // 'varied': /me and names in the other shapes real data takes (sandbox/shapes.ts), for trying every page with them.
    SANDBOX_SHAPES: z.enum(['plain', 'varied']).default('plain'),
  })
  .safeParse(process.env);

if (!env.success) {
  console.error(`Invalid sandbox configuration:\n${env.error.issues.map((i) => `  - ${String(i.path[0])} ${i.message}`).join('\n')}`);
  process.exit(1);
}

const config = env.data;
const frozen = config.SANDBOX_NOW ? Date.parse(config.SANDBOX_NOW) : undefined;
const started = Date.now();
const sandbox = createSandbox({
  picks: config.SANDBOX_PICKS,
  seed: config.SANDBOX_SEED,
  fullKey: config.SANDBOX_FULL_KEY,
  rateLimit: config.SANDBOX_RATE_LIMIT > 0 ? { limit: config.SANDBOX_RATE_LIMIT, windowMs: config.SANDBOX_RATE_WINDOW_MS } : null,
  defaultPageSize: config.SANDBOX_PAGE_SIZE,
  pickShape: config.SANDBOX_PICK_SHAPE,
  now: frozen === undefined ? undefined : () => frozen,
  testHooks: config.SANDBOX_TEST_HOOKS === '1',
  cursors: config.SANDBOX_CURSORS,
  shapes: config.SANDBOX_SHAPES,
});
const url = await sandbox.listen(config.SANDBOX_PORT, config.SANDBOX_HOST);
const throttle =
  config.SANDBOX_RATE_LIMIT > 0 ? `${config.SANDBOX_RATE_LIMIT} requests per ${config.SANDBOX_RATE_WINDOW_MS / 1000} s per key` : 'off';
const seeded = `${sandbox.records.length} picks, ${Date.now() - started} ms to seed`;
if (config.SANDBOX_BRIEF === '1') {
  console.log(
    `[sandbox] Picks API v1 sandbox on ${url} (${seeded}; throttle ${throttle}; ${sandbox.licences.length} keys: docs/sandbox.md)`,
  );
} else {
  console.log(`[sandbox] Picks API v1 sandbox on ${url} (${seeded})`);
  console.log(`[sandbox] throttle: ${throttle}`);
  // A key given through SANDBOX_FULL_KEY is somebody's secret: say where it came from, never print it.
  for (const licence of sandbox.licences) {
    const shown = config.SANDBOX_FULL_KEY && licence.key === config.SANDBOX_FULL_KEY ? '(SANDBOX_FULL_KEY)' : licence.key;
    console.log(`[sandbox]   key ${shown.padEnd(24)} ${licence.label}`);
  }
}
if (config.SANDBOX_TEST_HOOKS === '1')
  console.log('[sandbox] test hooks on: POST /__sandbox/clock, /retract, /restore, /edit, /cursors, /during-walk');
if (config.SANDBOX_SHAPES === 'varied')
  console.log('[sandbox] shapes varied: /me lists its licences; names are long and carry quotes, accents and markup');
if (config.SANDBOX_CURSORS === 'offset') console.log('[sandbox] cursors are offsets: records published or withdrawn during a walk move it');

const stop = () => void sandbox.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
