import { benchOptions, writeResult } from './options';
import { cpuMs, median, settled, signIn, startStack } from './support';

/**
 * `npm run bench:formats`: the export's formats against each other in one run, over the same records (bench/replay.ts
 * replaying the sandbox's pages from memory, --picks 55,000: about 40,000 licensed records). Alternating rounds of a
 * CSV, a JSON, a JSON Lines and a Parquet export, each read to its end over HTTP and its record history waited out.
 * Prints medians, sizes and the ratios the targets name: Parquet ≤ 1.5× the CSV's time and ≤ 0.4× its size; JSON
 * Lines ≤ 1.1× the JSON's time. Beside each export a probe asks the liveness route one request after another: its
 * longest answer is how long the export held the portal's event loop at a stretch (a Parquet row group is written whole).
 */

const options = benchOptions('bench:formats', 'Parquet and JSON Lines exports against CSV and JSON over the same records.', {
  rounds: { default: 7, help: 'alternating rounds' },
  picks: { default: 55_000, help: "the sandbox's size (about 40,000 licensed records at 55,000)" },
});

const FORMATS = ['csv', 'json', 'jsonl', 'parquet'] as const;
type Format = (typeof FORMATS)[number];

async function exportOf(portalUrl: string, cookie: string, format: Format): Promise<{ ms: number; bytes: number; probeMaxMs: number }> {
  let running = true;
  const probe = (async () => {
    let longest = 0;
    while (running) {
      const asked = performance.now();
      await (await fetch(`${portalUrl}/api/health/live`, { signal: AbortSignal.timeout(30_000) })).arrayBuffer();
      longest = Math.max(longest, performance.now() - asked);
    }
    return longest;
  })();
  const start = performance.now();
  const res = await fetch(`${portalUrl}/api/export/picks?format=${format}`, { headers: { cookie } });
  if (!res.ok || !res.body) throw new Error(`export ${format}: HTTP ${res.status}`);
  let bytes = 0;
  const reader = res.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) bytes += read.value.byteLength;
  const ms = performance.now() - start;
  running = false;
  return { ms, bytes, probeMaxMs: await probe };
}

const stack = await startStack({
  sandboxPort: 4530,
  portalPort: 3530,
  sandboxEnv: { SANDBOX_PICKS: String(options.picks), SANDBOX_RATE_LIMIT: '0' },
  replay: { port: 4535, delayMs: 0 },
});
try {
  const cookie = await signIn(stack.portalUrl);
  const pid = stack.portal.pid!;
  for (const format of FORMATS) await exportOf(stack.portalUrl, cookie, format); // warm-up: every route and writer compiled
  await settled(pid);
  const ms: Record<Format, number[]> = { csv: [], json: [], jsonl: [], parquet: [] };
  const cpu: Record<Format, number[]> = { csv: [], json: [], jsonl: [], parquet: [] };
  const probe: Record<Format, number[]> = { csv: [], json: [], jsonl: [], parquet: [] };
  const bytes: Partial<Record<Format, number>> = {};
  for (let round = 1; round <= options.rounds; round += 1) {
    // Each round in another order, so no format always follows the same one.
    const order = FORMATS.map((_, i) => FORMATS[(i + round) % FORMATS.length]!);
    for (const format of order) {
      const before = cpuMs(pid);
      const run = await exportOf(stack.portalUrl, cookie, format);
      ms[format].push(run.ms);
      cpu[format].push(cpuMs(pid) - before);
      probe[format].push(run.probeMaxMs);
      bytes[format] = run.bytes;
      await settled(pid);
    }
    console.log(`[bench] round ${round}: ${FORMATS.map((f) => `${f} ${ms[f].at(-1)!.toFixed(0)} ms`).join(', ')}`);
  }
  const medians = Object.fromEntries(FORMATS.map((f) => [f, median(ms[f])])) as Record<Format, number>;
  const results = {
    picks: options.picks,
    rounds: options.rounds,
    medianMs: medians,
    portalCpuMs: Object.fromEntries(FORMATS.map((f) => [f, median(cpu[f])])),
    /** The longest a liveness request waited during each export (median over the rounds). */
    longestProbeMs: Object.fromEntries(FORMATS.map((f) => [f, Math.round(median(probe[f]))])),
    bytes,
    ratio: {
      parquetTimeToCsv: medians.parquet / medians.csv,
      parquetSizeToCsv: bytes.parquet! / bytes.csv!,
      jsonlTimeToJson: medians.jsonl / medians.json,
    },
  };
  console.log(
    `\n[bench] Parquet ${results.ratio.parquetTimeToCsv.toFixed(3)}× the CSV's time (target ≤ 1.5), ${results.ratio.parquetSizeToCsv.toFixed(3)}× its size (target ≤ 0.4); JSON Lines ${results.ratio.jsonlTimeToJson.toFixed(3)}× the JSON's time (target ≤ 1.1)`,
  );
  console.log(`[bench] sizes: ${FORMATS.map((f) => `${f} ${((bytes[f] ?? 0) / 1_048_576).toFixed(1)} MB`).join(', ')}`);
  console.log(
    `[bench] the longest liveness answer beside an export: ${FORMATS.map((f) => `${f} ${results.longestProbeMs[f]} ms`).join(', ')}`,
  );
  await writeResult('formats', results);
} finally {
  stack.stop();
}
