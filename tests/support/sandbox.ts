import { afterAll, beforeAll } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '@/sandbox/server';

/**
 * A sandbox over real HTTP for one contract test file: listening on a free port before its tests, closed
 * after them. Frozen clock (2026-11-20T12:00Z unless given) and no throttling, so walks stay put.
 * Read `sandbox` and `baseUrl` inside tests and hooks, once it has started.
 */
export function sandboxOverHttp(options: SandboxOptions = {}): { sandbox: Sandbox; baseUrl: string } {
  const running = { sandbox: undefined as unknown as Sandbox, baseUrl: '' };
  beforeAll(async () => {
    running.sandbox = createSandbox({ now: () => Date.parse('2026-11-20T12:00:00Z'), rateLimit: null, ...options });
    running.baseUrl = await running.sandbox.listen(0);
  });
  afterAll(() => running.sandbox.close());
  return running;
}
