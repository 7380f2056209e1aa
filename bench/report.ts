import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm run bench:report [bench…]`: the latest figures of each bench, read from bench-results/<bench>.json (what the
 * last run of it on this machine wrote), one line a figure: commit, date, settings, then every number by its path.
 */

const DIR = 'bench-results';
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));

function numbers(value: unknown, at: string, out: [string, number | string][]): void {
  if (typeof value === 'number') out.push([at, Number.isInteger(value) ? value : Number(value.toFixed(3))]);
  else if (typeof value === 'string' && at.length > 0 && value.length <= 40) out.push([at, value]);
  else if (Array.isArray(value)) value.forEach((item, i) => numbers(item, `${at}[${i}]`, out));
  else if (value && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) numbers(inner, at ? `${at}.${key}` : key, out);
}

if (!existsSync(DIR)) {
  console.log(`No ${DIR}/ here yet: run a bench first (bench/README.md says which and how).`);
  process.exit(0);
}
const files = readdirSync(DIR)
  .filter((file) => file.endsWith('.json'))
  .filter((file) => only.length === 0 || only.includes(path.basename(file, '.json')))
  .sort();
if (files.length === 0) console.log(`No results in ${DIR}/${only.length ? ` for ${only.join(', ')}` : ''}.`);
for (const file of files) {
  const result = JSON.parse(readFileSync(path.join(DIR, file), 'utf8')) as {
    bench: string;
    commit: string;
    at: string;
    settings: Record<string, unknown>;
    figures: unknown;
  };
  const settings = Object.entries(result.settings ?? {})
    .map(([key, value]) => `--${key} ${String(value)}`)
    .join(' ');
  console.log(`\n${result.bench}: commit ${result.commit}, ${result.at}${settings ? `, ${settings}` : ''}`);
  const out: [string, number | string][] = [];
  numbers(result.figures, '', out);
  const width = Math.min(70, Math.max(...out.map(([key]) => key.length), 10));
  for (const [key, value] of out) console.log(`  ${key.padEnd(width)}  ${value}`);
}
