import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../lib/config';
import { toAppError } from '../lib/errors';
import { auditedStream, newProgress, recordExportRefused, type ExportContext } from '../lib/audit/export-trail';
import { exportFilename, planExport, startExport } from '../lib/export/stream';
import { licenceOrNull } from '../lib/picks-api/portal';
import { getStore } from '../lib/store';
import type { FilterKind } from '../lib/picks-api/filters';

/**
 * `npm run export -- picks|results --format csv|json|jsonl [--sport S] [--league L] [--status S] [--result R]
 *  [--from D] [--to D] [--bom] [--output FILE]`: the portal's export for scheduled jobs. Same code, same key
 * (PICKS_API_BASE_URL, PICKS_API_KEY), same failure rule: a failure exits non-zero, and leaves no
 * complete-looking file (with --output nothing is left; on stdout the output ends with a failure line).
 */

const usage =
  'usage: npm run export -- picks|results --format csv|json|jsonl [--sport S] [--league L] [--status S] [--result R] [--from D] [--to D] [--bom] [--output FILE]';

function fail(message: string, code = 1): never {
  console.error(message);
  process.exit(code);
}

const options = {
  format: { type: 'string' },
  sport: { type: 'string' },
  league: { type: 'string' },
  status: { type: 'string' },
  result: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  output: { type: 'string' },
  bom: { type: 'boolean' },
} as const;

function readArgs() {
  try {
    return parseArgs({ allowPositionals: true, options });
  } catch (error) {
    return fail(`${(error as Error).message}\n${usage}`, 2);
  }
}

const args = readArgs();
const kind = args.positionals[0];
if ((kind !== 'picks' && kind !== 'results') || args.positionals.length !== 1) fail(usage, 2);
const filterParams = new URLSearchParams();
for (const key of ['sport', 'league', 'status', 'result', 'from', 'to'] as const) {
  const value = args.values[key];
  if (value !== undefined) filterParams.set(key, value);
}
if (kind === 'results' && filterParams.has('status')) fail('results have no status filter', 2);

const output = args.values.output ?? null;
let bytesOut = 0;
const controller = new AbortController();
process.on('SIGINT', () => controller.abort());
process.on('SIGTERM', () => controller.abort());

let written = 0;
try {
  const plan = planExport(kind as FilterKind, filterParams, args.values.format ?? null, args.values.bom ? '1' : null);
  // Every export is recorded in the audit trail (as `cli`): without the store, none starts.
  await getStore({ attempts: 3, log: (line) => console.error(line) }).catch((error: unknown) =>
    fail(`export refused: exports are recorded in the audit trail, and ${(error as Error).message}`),
  );
  const startedAt = Date.now();
  const progress = newProgress();
  const context: ExportContext = {
    actor: 'cli',
    role: null,
    action: kind === 'picks' ? 'export.picks' : 'export.results',
    target: output ?? exportFilename(plan, new Date(startedAt)),
    filters: plan.sent,
    licence: (await licenceOrNull())?.licenceId ?? null,
  };
  const started = await startExport(plan, {
    signal: controller.signal,
    onPage: (count, requestId) => {
      written = progress.records = count;
      if (requestId) progress.requestIds.add(requestId);
    },
  }).catch(async (error: unknown) => {
    await recordExportRefused(context, error, startedAt);
    throw error;
  });
  const audited = auditedStream(started.stream, context, progress, startedAt);
  const body = Readable.fromWeb(audited as import('node:stream/web').ReadableStream<Uint8Array>);
  if (output) {
    // Written beside the target and renamed at the end: a failed export leaves no file that looks finished.
    // The temporary name is unpredictable and created exclusively (never through a planted file or link),
    // readable by its owner only: licensed data is not for every account on the machine.
    const partial = `${output}.${randomBytes(6).toString('hex')}.partial`;
    let created = false;
    try {
      const file = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
      file.once('open', () => (created = true));
      await pipeline(body, file);
      await rename(partial, output);
    } catch (error) {
      if (created) await rm(partial, { force: true });
      throw error;
    }
    console.error(`exported ${written} records to ${output}`);
  } else {
    for await (const chunk of body) {
      bytesOut += (chunk as Buffer).length;
      if (!process.stdout.write(chunk)) await once(process.stdout, 'drain'); // a slow reader slows the walk
    }
    console.error(`exported ${written} records (${started.filename})`);
  }
} catch (error) {
  if (error instanceof ConfigError) fail(error.message, 2);
  const failure = toAppError(error);
  if ((error as NodeJS.ErrnoException).code === 'EPIPE') fail(`export stopped after ${written} records: the reader closed the output`);
  if (!output && bytesOut > 0)
    process.stdout.write(`\nEXPORT FAILED after ${written} records: ${failure.code}. This output is incomplete.\n`);
  fail(
    `export failed after ${written} records: ${failure.code}: ${failure.message}${failure.requestId ? ` (request ${failure.requestId})` : ''}`,
  );
}
