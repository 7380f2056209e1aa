import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { waitUntil } from './instances';
import { preparePortals } from './prepare-portal';

/**
 * The main suite's servers, started all at once (Playwright starts the entries of `webServer` one after another:
 * nine of them took 76 s before the first test). Playwright runs this as its one web server: the portals' data
 * dirs are made afresh (prepare-portal.ts), then every command in E2E_SERVERS (JSON: command, url, env, and a
 * portal's data dir) starts at once in this process group, and E2E_READY_PORT listens once each url answers
 * below 500 (what Playwright waits for; each wait is bounded). A server that exits before it is ready ends the
 * start, naming it; Playwright's stop of this process group stops them all.
 */

/** One shared server of the main suite (playwright.config.ts). */
export interface SharedServer {
  command: string;
  url: string;
  env: Record<string, string>;
  portal?: { dataDir: string; users: 'staff' | 'none' };
}

const servers = JSON.parse(process.env.E2E_SERVERS ?? '[]') as SharedServer[];
const readyPort = Number(process.env.E2E_READY_PORT);
if (servers.length === 0 || !readyPort) throw new Error('start-servers: E2E_SERVERS and E2E_READY_PORT are required');

const ready = new Set<string>();
await preparePortals(servers.flatMap((server) => (server.portal ? [server.portal] : [])));
const children: ChildProcess[] = servers.map((server) => {
  const child = spawn('sh', ['-c', server.command], { env: { ...process.env, ...server.env }, stdio: 'inherit' });
  child.once('exit', (code, signal) => {
    if (ready.has(server.url)) return;
    console.error(`[start-servers] "${server.command}" exited (${signal ?? code}) before ${server.url} answered`);
    stop(1);
  });
  return child;
});

function stop(code: number): never {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  process.exit(code);
}
process.on('SIGTERM', () => stop(143));
process.on('SIGINT', () => stop(130));

await Promise.all(
  servers.map(async ({ url }) => {
    const answers = async () => (await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(2_000) })).status < 500;
    await waitUntil(answers, url, 200_000);
    ready.add(url);
  }),
).catch((error: unknown) => {
  console.error(`[start-servers] ${(error as Error).message}`);
  stop(1);
});

createServer((_req, res) => res.writeHead(200).end('ready')).listen(readyPort, '127.0.0.1');
console.log(`[start-servers] ${servers.length} servers ready`);
