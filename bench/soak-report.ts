import { percentile, median } from './support';
import { classFigures, portalFaults, tally, type Sample } from './soak-actors';

/** bench:soak's report of one day (bench/soak.ts): the figures of each class, the targets' figures, printed and returned. */

export const series = (text: string, name: string) =>
  [...text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))].map((m) => ({ labels: m[1] ?? '', value: Number(m[2]) }));

/** The longest gate wait by lane: the upper bound of the highest bucket any request fell beyond the one below. */
function longestGateWait(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const lane of ['page', 'bulk', 'consumer']) {
    const buckets = series(text, 'portal_upstream_gate_wait_seconds_bucket').filter((s) => s.labels.includes(`lane="${lane}"`));
    const total = buckets.find((b) => b.labels.includes('le="+Inf"'))?.value ?? 0;
    const under = buckets.find((b) => b.value === total && !b.labels.includes('+Inf'));
    out[lane] = total === 0 ? 'none' : under ? `≤ ${/le="([^"]+)"/.exec(under.labels)![1]} s` : '> 60 s';
  }
  return out;
}

export function report(
  label: string,
  samples: Sample[],
  aloneUntil: number,
  seen: {
    memory: Array<{ s: number; mb: number }>;
    lag: number[];
    text: string;
    runs: Array<{ outcome: string; durationMs: number | null; error: string | null }>;
    upstream: number;
    throttled: number;
    /** Cores used while everything ran, by process. */
    cpu: { portal: number; sandbox: number; load: number };
  },
) {
  const alone = (c: Sample['class']) => samples.filter((s) => s.class === c && s.at < aloneUntil);
  const busy = (c: Sample['class']) => samples.filter((s) => s.class === c && s.at >= aloneUntil + 10_000);
  /** A probe's p95 alone and with everything, and how much it grew. */
  const growth95 = (c: Sample['class']) => {
    const [a, b] = [p95(alone(c)), p95(busy(c))];
    return { alone: Math.round(a), withConsumers: Math.round(b), ratio: b / a };
  };
  const pagesAlone = alone('page');
  const pagesBusy = busy('page');
  const p95 = (xs: Sample[]) =>
    percentile(
      xs.map((s) => s.ms),
      95,
    );
  const classes = Object.fromEntries(
    (['page', 'export', 'api_v1'] as const).map((c) => [
      c,
      classFigures(samples.filter((s) => s.class === c && (c !== 'page' || s.at >= aloneUntil))),
    ]),
  );
  const runMs = seen.runs.flatMap((r) => (r.durationMs === null ? [] : [r.durationMs]));
  const outcomes = tally(seen.runs.map((r) => (r.error ? `${r.outcome}: ${r.error.slice(0, 60)}` : r.outcome)));
  const deliveries = { count: seen.runs.length, p50: median(runMs), p95: percentile(runMs, 95), p99: percentile(runMs, 99), outcomes };
  // Growth as the collector leaves it: the median of the last minute against that of the first minute of everything
  // (a single sample is a garbage collection's timing, not growth); the peak is printed beside it.
  const mb = (from: number, to: number) => seen.memory.filter((m) => m.s * 1000 >= from && m.s * 1000 < to).map((m) => m.mb);
  const lastAt = (seen.memory.at(-1)?.s ?? 0) * 1000;
  const growth = median(mb(lastAt - 55_000, lastAt + 1)) - median(mb(aloneUntil, aloneUntil + 60_000));
  const peak = Math.max(...seen.memory.map((m) => m.mb));
  const waits = Object.fromEntries(
    series(seen.text, 'portal_waits_bounded_total').map((s) => [/wait="([^"]+)"/.exec(s.labels)![1], s.value]),
  );
  const faults = portalFaults(samples);
  const alone95 = percentile(
    pagesAlone.map((s) => s.ms),
    95,
  );
  const busy95 = percentile(
    pagesBusy.map((s) => s.ms),
    95,
  );
  const result = {
    upstream: label,
    classes,
    deliveries,
    pageP95: { alone: Math.round(alone95), withConsumers: Math.round(busy95), ratio: busy95 / alone95 },
    pagesByPath: [...new Set(pagesAlone.map((s) => s.path))]
      .map((path) => {
        const [a, b] = [pagesAlone, pagesBusy].map((xs) => Math.round(p95(xs.filter((s) => s.path === path))));
        return { path, alone: a!, withConsumers: b! };
      })
      .sort((x, y) => y.withConsumers - y.alone - (x.withConsumers - x.alone)),
    upstreamP95: growth95('upstream'),
    // The floor: a bare Next.js records page in a plain signed-in frame on the same machine and upstream.
    bareP95: {
      ...growth95('bare'),
      errors: tally(samples.filter((s) => s.class === 'bare' && s.status !== 200).map((s) => `${s.status} ${s.code ?? ''}`.trim())),
    },
    memoryMb: seen.memory,
    memoryGrowthAfterFirstMinuteMb: growth,
    memoryPeakMb: peak,
    eventLoopP99Ms: { max: Math.round(Math.max(...seen.lag)), median: Math.round(median(seen.lag)) },
    waitsBounded: waits,
    longestGateWait: longestGateWait(seen.text),
    upstreamRequests: seen.upstream,
    upstreamThrottled: seen.throttled,
    coresUsed: seen.cpu,
    faults,
  };
  const line = (name: string, f: ReturnType<typeof classFigures> | typeof deliveries) =>
    `  ${name.padEnd(10)} ${String(f.count).padStart(6)}   p50 ${String(Math.round(f.p50)).padStart(6)}  p95 ${String(Math.round(f.p95)).padStart(6)}  p99 ${String(Math.round(f.p99)).padStart(6)} ms   ${JSON.stringify('errors' in f ? f.errors : f.outcomes)}${'longest' in f && f.longest ? `   longest ${f.longest.ms} ms ${f.longest.path} ${f.longest.status} ${f.longest.code ?? ''}` : ''}`;
  console.log(`\n[bench] soak, ${label}: ${samples.length} requests, ${seen.upstream} upstream requests (${seen.throttled} throttled)`);
  for (const [name, f] of Object.entries(classes)) console.log(line(name, f));
  console.log(line('deliveries', deliveries));
  console.log(
    `  pages whose p95 grew most, alone → with everything: ${result.pagesByPath
      .slice(0, 5)
      .map((p) => `${p.path} ${p.alone} → ${p.withConsumers} ms`)
      .join(', ')}`,
  );
  console.log(
    `  cores used while everything ran (of 2): portal ${seen.cpu.portal.toFixed(2)}, sandbox ${seen.cpu.sandbox.toFixed(2)}, this load ${seen.cpu.load.toFixed(2)}`,
  );
  console.log(
    `  page p95 alone ${result.pageP95.alone} ms, with everything ${result.pageP95.withConsumers} ms: ${result.pageP95.ratio.toFixed(2)}× (target ≤ 1.5)`,
  );
  console.log(
    `  the upstream asked directly as a page asks it: p95 alone ${result.upstreamP95.alone} ms, with everything ${result.upstreamP95.withConsumers} ms: ${result.upstreamP95.ratio.toFixed(2)}×`,
  );
  console.log(
    `  the floor, a bare Next.js page of 50 rows in a plain signed-in frame: p95 alone ${result.bareP95.alone} ms, with everything ${result.bareP95.withConsumers} ms: ${result.bareP95.ratio.toFixed(2)}× (the pages' ratio over it ${(result.pageP95.ratio / result.bareP95.ratio).toFixed(2)}; its answers not 200 ${JSON.stringify(result.bareP95.errors)})`,
  );
  console.log(
    `  memory ${seen.memory.map((m) => m.mb).join(' ')} MB; growth after the first minute ${growth} MB (medians of the first and last minutes; target ≤ 64), peak ${peak} MB`,
  );
  console.log(
    `  event-loop delay p99 per 10 s: max ${result.eventLoopP99Ms.max} ms, median ${result.eventLoopP99Ms.median} ms (target ≤ 100)`,
  );
  console.log(`  waits at their bound ${JSON.stringify(waits)}; longest gate wait by lane ${JSON.stringify(result.longestGateWait)}`);
  console.log(
    `  500/504 not caused by the upstream: ${faults.serverErrors.length}${faults.serverErrors.length ? ` ${faults.serverErrors.slice(0, 5).join('; ')}` : ''} (target 0)`,
  );
  console.log(
    `  over 10 s not caused by the upstream: ${faults.slow.length}${faults.slow.length ? ` ${faults.slow.slice(0, 5).join('; ')}` : ''} (target 0)`,
  );
  return result;
}
