import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

/**
 * A bench's settings as command-line flags (`npm run bench:export -- --rounds 5 --baseline 3f2453d`), with
 * `--help` listing them, and the result file every run writes: `bench-results/<bench>.json` (ignored by
 * git) holding the commit, the time, the settings and the figures.
 */

type Spec = Record<string, { default: string | number | boolean; help: string }>;
type Values<S extends Spec> = {
  [K in keyof S]: S[K]['default'] extends boolean ? boolean : S[K]['default'] extends number ? number : string;
};

export function benchOptions<S extends Spec>(bench: string, about: string, spec: S): Values<S> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      help: { type: 'boolean' },
      ...Object.fromEntries(
        Object.entries(spec).map(([name, o]) => [name, { type: typeof o.default === 'boolean' ? 'boolean' : 'string' }]),
      ),
    } as Record<string, { type: 'string' | 'boolean' }>,
  });
  if (values.help) {
    console.log(`npm run ${bench} -- [flags]\n\n${about}\n`);
    for (const [name, o] of Object.entries(spec)) console.log(`  --${name.padEnd(16)} ${o.help} (default: ${String(o.default)})`);
    process.exit(0);
  }
  const out: Record<string, unknown> = {};
  const wrong: string[] = [];
  for (const [name, o] of Object.entries(spec)) {
    const given = values[name];
    if (given === undefined) out[name] = o.default;
    else if (typeof o.default === 'number') {
      const n = Number(given);
      if (!Number.isFinite(n) || n < 0) wrong.push(`--${name} must be a number, not "${String(given)}"`);
      out[name] = n;
    } else out[name] = given;
  }
  if (wrong.length > 0) {
    console.error(`[bench] ${wrong.join('; ')}`);
    process.exit(2);
  }
  settings = out;
  return out as Values<S>;
}

let settings: Record<string, unknown> = {};

/** Writes bench-results/<name>.json: this commit, now, the settings of this run, and its figures. */
export async function writeResult(name: string, figures: unknown): Promise<string> {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  const file = `bench-results/${name}.json`;
  await mkdir('bench-results', { recursive: true });
  await writeFile(file, `${JSON.stringify({ bench: name, commit, at: new Date().toISOString(), settings, figures }, null, 2)}\n`);
  console.log(`[bench] figures written to ${file}`);
  return file;
}
