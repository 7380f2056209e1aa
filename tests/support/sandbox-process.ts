import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { E2E } from './ports';
import { waitUntil } from './instances';

/**
 * A sandbox of a spec's own (`sandbox/main.ts` in a child process) on `port`, its data laid around today and its
 * clock frozen at the start, throttling off, with the e2e key as its full key; ready once /health answers.
 */
export async function startSandboxProcess(port: number, env: Record<string, string> = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const url = `http://127.0.0.1:${port}`;
  const taken = await fetch(`${url}/api/v1/health`).then(
    () => true,
    () => false,
  );
  if (taken) throw new Error(`port ${port} must be free (a sandbox left over from an earlier run?)`);
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'sandbox/main.ts'], {
    env: {
      ...process.env,
      SANDBOX_PORT: String(port),
      SANDBOX_RATE_LIMIT: '0',
      SANDBOX_NOW: new Date().toISOString(),
      SANDBOX_FULL_KEY: E2E.sandboxKey,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // What it says goes to its log file, not between the test results.
  mkdirSync(path.dirname(E2E.logFile(port)), { recursive: true });
  child.stderr!.pipe(createWriteStream(E2E.logFile(port), { flags: 'a' }));
  await waitUntil(
    async () => (await fetch(`${url}/api/v1/health`, { headers: { Authorization: `Bearer ${E2E.sandboxKey}` } })).ok,
    'the sandbox',
  );
  return {
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
