import { mkdirSync } from 'node:fs';
import autocannon from 'autocannon';
import { PORTAL_NODE_ARGS } from './portal-node-options';
import { signIn, startStack } from './bench-support';

/**
 * `npm run profile:pages`: a V8 CPU profile of the portal while PROFILE_CONNECTIONS (4) signed-in clients
 * ask for PROFILE_PATH (/picks?limit=200) for PROFILE_SECONDS (15). The profile lands in
 * bench-results/profiles/ (open it in Chrome DevTools' Performance panel or speedscope). For readable
 * function names, build first with `PORTAL_PROFILE_BUILD=1 npx next build` (server code not minified).
 */

const dir = 'bench-results/profiles';
mkdirSync(dir, { recursive: true });
process.env.BENCH_PORTAL_NODE_ARGS = [...PORTAL_NODE_ARGS, '--cpu-prof', `--cpu-prof-dir=${dir}`].join(' ');
const stack = await startStack({ sandboxPort: 4541, portalPort: 3541, sandboxEnv: { SANDBOX_RATE_LIMIT: '0' } });
try {
  const cookie = await signIn(stack.portalUrl);
  const path = process.env.PROFILE_PATH ?? '/picks?limit=200';
  const result = await autocannon({
    url: `${stack.portalUrl}${path}`,
    connections: Number(process.env.PROFILE_CONNECTIONS ?? 4),
    duration: Number(process.env.PROFILE_SECONDS ?? 15),
    headers: { cookie },
  });
  console.log(`[profile] ${path}: ${result.requests.average} requests/s, p50 ${result.latency.p50} ms, non-2xx ${result.non2xx}`);
  stack.portal.kill('SIGTERM'); // the profile is written when the process exits
  await new Promise((resolve) => stack.portal.once('exit', resolve));
  console.log(`[profile] written to ${dir}/`);
} finally {
  stack.stop();
}
