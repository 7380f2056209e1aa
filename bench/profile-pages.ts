import { mkdirSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import WebSocket from 'ws';
import { PORTAL_NODE_ARGS } from '../scripts/portal-node-options';
import { assertPortFree, indexHolds, signIn, startStack } from './support';
import { benchOptions } from './options';

/**
 * `npm run profile:pages`: a profile of the portal while --connections (4) signed-in clients ask for
 * --path (/picks?limit=200) for --seconds (15). It lands in bench-results/profiles/ (open it in
 * Chrome DevTools or speedscope). For readable function names, build first with
 * `PORTAL_PROFILE_BUILD=1 npx next build` (server code not minified).
 * - --kind cpu (the default): a V8 CPU profile (`.cpuprofile`, Performance panel).
 * - --kind alloc: what the portal allocates, garbage included (`.heapprofile`, Memory panel), by V8's
 *   sampling heap profiler over the inspector protocol (Node's own --heap-prof keeps only what is still alive,
 *   so it cannot show what the collector spends its time on); prints MB per request and the top allocators.
 */

const options = benchOptions('profile:pages', 'A CPU or allocation profile of the portal serving one path under load.', {
  kind: { default: 'cpu', help: 'cpu (a .cpuprofile) or alloc (a .heapprofile)' },
  path: { default: '/picks?limit=200', help: 'the path asked for' },
  seconds: { default: 15, help: 'how long the load lasts' },
  connections: { default: 4, help: 'signed-in clients asking at once' },
});
const dir = 'bench-results/profiles';
const kind = options.kind;
if (kind !== 'cpu' && kind !== 'alloc') throw new Error(`--kind must be cpu or alloc, not ${kind}`);
const INSPECT_PORT = 9341;
mkdirSync(dir, { recursive: true });
if (kind === 'alloc') await assertPortFree(INSPECT_PORT);
const profileArgs = kind === 'cpu' ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [`--inspect=127.0.0.1:${INSPECT_PORT}`];
process.env.BENCH_PORTAL_NODE_ARGS = [...PORTAL_NODE_ARGS, ...profileArgs].join(' ');
const stack = await startStack({ sandboxPort: 4541, portalPort: 3541, sandboxEnv: { SANDBOX_RATE_LIMIT: '0' } });
try {
  const cookie = await signIn(stack.portalUrl);
  const path = options.path;
  // A search is answered from the index, which the feed's first poll fills.
  const words = new URL(path, 'http://portal').searchParams.get('q');
  if (words) await indexHolds(stack.portalUrl, cookie, words, 1);
  const load = (duration: number) =>
    autocannon({
      url: `${stack.portalUrl}${path}`,
      connections: options.connections,
      duration,
      headers: { cookie },
    });
  if (kind === 'cpu') {
    const result = await load(options.seconds);
    console.log(`[profile] ${path}: ${result.requests.average} requests/s, p50 ${result.latency.p50} ms, non-2xx ${result.non2xx}`);
    stack.portal.kill('SIGTERM'); // the profile is written when the process exits
    await new Promise((resolve) => stack.portal.once('exit', resolve));
  } else {
    await load(3); // warm-up: routes loaded, connections open
    const inspector = await connectInspector(INSPECT_PORT);
    await inspector.send('HeapProfiler.enable');
    await inspector.send('HeapProfiler.startSampling', {
      samplingInterval: 16_384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    const result = await load(options.seconds);
    const { profile } = (await inspector.send('HeapProfiler.stopSampling')) as { profile: { head: HeapNode } };
    inspector.close();
    const file = `${dir}/alloc-${new Date().toISOString().replace(/[:.]/g, '')}.heapprofile`;
    writeFileSync(file, JSON.stringify(profile));
    console.log(`[profile] ${path}: ${result.requests.total} requests, non-2xx ${result.non2xx}`);
    summarise(profile.head, result.requests.total);
  }
  console.log(`[profile] written to ${dir}/`);
} finally {
  stack.stop();
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** MB allocated per request, and the functions that allocated most themselves (sampled, so approximate). */
function summarise(head: HeapNode, requests: number) {
  const bySelf = new Map<string, number>();
  let total = 0;
  const pending = [head];
  for (let node = pending.pop(); node; node = pending.pop()) {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.split('/').at(-1)}:${lineNumber + 1}`;
    bySelf.set(name, (bySelf.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    pending.push(...node.children);
  }
  console.log(`[profile] allocated ${(total / 1e6).toFixed(0)} MB, ${(total / 1e6 / Math.max(1, requests)).toFixed(2)} MB a request`);
  const top = [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, 20);
  console.table(top.map(([where, bytes]) => ({ where, MB: +(bytes / 1e6).toFixed(1), share: `${((100 * bytes) / total).toFixed(1)} %` })));
}

/** A Chrome DevTools protocol session with the portal's inspector (loopback only). */
async function connectInspector(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl, { maxPayload: 1 << 30 });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    const waiter = message.id === undefined ? undefined : waiting.get(message.id);
    if (!waiter) return;
    waiting.delete(message.id!);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  });
  let lastId = 0;
  return {
    send: (method: string, params: Record<string, unknown> = {}) =>
      new Promise<unknown>((resolve, reject) => {
        lastId += 1;
        waiting.set(lastId, { resolve, reject });
        socket.send(JSON.stringify({ id: lastId, method, params }));
      }),
    close: () => socket.close(),
  };
}
