import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { E2E } from './ports';
import { once } from 'node:events';
import { ownerOnlyTestKey } from './test-key';

export const TEST_SIGNING_KEY = ownerOnlyTestKey();

/** A file descriptor of `.data/e2e-logs/<name>.log` (appended to) for a spawned process's output: never the test results. */
export function logFd(name: number | string): number {
  mkdirSync(path.dirname(E2E.logFile(name)), { recursive: true });
  return openSync(E2E.logFile(name), 'a');
}

/** Portal processes started by a spec itself (`npm start` with a real upstream), stopped and restarted at will. */

export async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface Instance {
  origin: string;
  stop(): Promise<void>;
  /** Sends a signal to the portal's process group, without waiting (graceful-stop tests). */
  signal?(name: NodeJS.Signals): void;
  /** Resolves when `npm start` has exited. */
  exited?: Promise<unknown>;
}

/** `npm start` in a process group of its own, ready once /login answers. */
export async function startInstance(port: number, env: Record<string, string>, output?: string[]): Promise<Instance> {
  // What the portal prints goes to its log file (E2E.logFile: npm test scans them for the canary key, and names them
  // when a test fails), never between the test results; with `output` it is also kept there (tests that read its logs).
  mkdirSync(path.dirname(E2E.logFile(port)), { recursive: true });
  const log = createWriteStream(E2E.logFile(port), { flags: 'a' });
  const child: ChildProcess = spawn('npm', ['start'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // DELIVERY_SPOOL_MIN_FREE_MB: the tests must not depend on how full this machine's disk is (one spec sets its own).
    // PORTAL_SIGNING_KEY_FILE: instances sharing a PostgreSQL need the one key an operator would give them (a test fixture here).
    env: {
      ...process.env,
      PORT: String(port),
      NEXTAUTH_URL: `http://localhost:${port}`,
      DELIVERY_SPOOL_MIN_FREE_MB: '1',
      ...(env.DATABASE_URL ? { PORTAL_SIGNING_KEY_FILE: TEST_SIGNING_KEY } : {}),
      ...env,
    },
  });
  for (const stream of [child.stdout!, child.stderr!])
    stream.on('data', (chunk: Buffer) => {
      output?.push(chunk.toString());
      log.write(chunk);
    });
  child.once('close', () => log.end()); // after its output has drained, not at its exit
  const origin = `http://127.0.0.1:${port}`;
  await waitUntil(async () => (await fetch(`${origin}/login`)).ok, `the portal on ${port}`);
  const exited = child.exitCode !== null ? Promise.resolve() : once(child, 'exit');
  return {
    origin,
    signal: (name) => child.pid && process.kill(-child.pid, name),
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
      process.kill(-child.pid, 'SIGTERM');
      await once(child, 'exit');
      await waitUntil(
        async () =>
          !(await fetch(`${origin}/login`).then(
            () => true,
            () => false,
          )),
        `the portal on ${port} to stop`,
        30_000,
      );
    },
  };
}

export const usersCommand = (args: string[], env: Record<string, string>, input = '') =>
  new Promise<number>((resolve) => {
    const child = spawn('npm', ['run', '-s', 'users', '--', ...args], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'ignore', logFd('users-command')],
    });
    child.stdin!.end(input);
    child.on('exit', (code) => resolve(code ?? 1));
  });
