import { describe, expect, it } from 'vitest';
import { captureConsole, createPortalLogger } from '@/lib/log/create.mjs';

/** The logger every portal process writes with (lib/log/create.mjs): one JSON object per line, nothing secret in any. */

function capture(env: Record<string, string> = {}) {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const logger = createPortalLogger({
    env,
    destination: {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  });
  return { logger, lines, raw };
}

const KEY = 'pk_live_5f0c1d2e3a4b5c6d7e8f';

describe('the portal logger', () => {
  it('writes one JSON object per line with level, time and instance', () => {
    const { logger, lines, raw } = capture();
    logger.info({ component: 'changes', poll: 'poll_1' }, 'poll complete');
    expect(raw).toHaveLength(1);
    expect(raw[0]!.endsWith('\n')).toBe(true);
    expect(raw[0]!.trimEnd()).not.toContain('\n');
    expect(lines[0]).toMatchObject({ level: 'info', component: 'changes', poll: 'poll_1', msg: 'poll complete' });
    expect(Date.parse(String(lines[0]!.time))).toBeGreaterThan(0);
    expect(String(lines[0]!.instance)).toMatch(/:\d+$/);
  });

  it('cuts every secret of the environment out of every line: messages, fields, stacks, causes, base64 and URL passwords', () => {
    const env = {
      PICKS_API_KEY: KEY,
      AUTH_SECRET: 'a-session-secret-of-32-characters!!',
      METRICS_TOKEN: 'metrics-token-0123456789abcdef',
      DATABASE_URL: 'postgres://portal:pa55w0rd-x@db:5432/portal',
      PORT: '3000',
    };
    const { logger, raw } = capture(env);
    const cause = new Error(`upstream said Bearer ${KEY}`);
    logger.error(
      { err: new Error(`walk failed for ${KEY}`, { cause }), header: `Basic ${Buffer.from(KEY).toString('base64')}` },
      'with "quotes" and pa55w0rd-x',
    );
    logger.warn({ nested: { deep: `${env.AUTH_SECRET} and ${env.METRICS_TOKEN}` } }, 'nested');
    const all = raw.join('');
    for (const secret of [KEY, Buffer.from(KEY).toString('base64').replace(/=+$/, ''), env.AUTH_SECRET, env.METRICS_TOKEN, 'pa55w0rd-x'])
      expect(all).not.toContain(secret);
    expect(all.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(6);
    expect(all).toContain('walk failed for [redacted]');
  });

  it('never writes credentials or webhook addresses kept in fields, at any level', () => {
    const { logger, lines } = capture({ LOG_LEVEL: 'trace' });
    logger.trace(
      {
        password: 'hunter22',
        cookie: 'portal.session=x',
        authorization: 'Bearer y',
        target: { webhookUrl: 'https://h.example/x?sig=1', secret: 's' },
      },
      'x',
    );
    expect(lines[0]).toMatchObject({ password: '[redacted]', cookie: '[redacted]', authorization: '[redacted]' });
    expect(lines[0]!.target).toEqual({ webhookUrl: '[redacted]', secret: '[redacted]' });
  });

  it('honours LOG_LEVEL, and a wrong one still logs (the configuration check names it)', () => {
    const quiet = capture({ LOG_LEVEL: 'warn' });
    quiet.logger.info('not written');
    quiet.logger.warn('written');
    expect(quiet.lines.map((line) => line.msg)).toEqual(['written']);
    const wrong = capture({ LOG_LEVEL: 'loud' });
    wrong.logger.info('still written');
    expect(wrong.lines).toHaveLength(1);
  });

  it('takes over console: `[component] message` lines, Next’s error with its stack as one line, the request id', async () => {
    const { logger, lines, raw } = capture({ PICKS_API_KEY: KEY });
    const saved = { log: console.log, error: console.error, warn: console.warn, info: console.info, debug: console.debug };
    const listeners = process.listeners('warning');
    try {
      captureConsole(logger, {
        context: () => ({ reqId: 'abc123' }),
        special: (error, fields) => {
          if (error.message !== 'failed to pipe response') return false;
          logger.warn({ ...fields, cause: (error.cause as Error).message }, 'cut off');
          return true;
        },
      });
      console.log('[changes] poll complete: 2 changes');
      console.error(' ⨯', new Error(`render failed near ${KEY}`));
      console.error(new Error('failed to pipe response', { cause: new Error('THROTTLED after 400 records') }));
      console.warn('a library warning %d', 7);
      console.log('\u001b[32m\u001b[1m✓\u001b[22m\u001b[39m Running next.config.mjs took 22ms');
      // A dependency's notice (the AWS SDK's on Node 20): one warn line, not Node's own print at error level.
      process.emitWarning('The AWS SDK for JavaScript (v3)\nwill require node >=22.', 'NodeVersionSupportWarning');
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      Object.assign(console, saved);
      process.removeAllListeners('warning');
      for (const listener of listeners) process.on('warning', listener);
    }
    expect(raw).toHaveLength(6);
    expect(lines[5]).toMatchObject({
      level: 'warn',
      component: 'node',
      warning: 'NodeVersionSupportWarning',
      msg: 'The AWS SDK for JavaScript (v3) will require node >=22.',
    });
    expect(lines[4]).toMatchObject({ level: 'info', msg: 'Running next.config.mjs took 22ms' });
    expect(lines[0]).toMatchObject({ level: 'info', component: 'changes', msg: 'poll complete: 2 changes', reqId: 'abc123' });
    expect(lines[1]).toMatchObject({ level: 'error', msg: 'render failed near [redacted]', reqId: 'abc123' });
    expect((lines[1]!.err as { stack: string }).stack).toContain('at ');
    expect(lines[2]).toMatchObject({ level: 'warn', msg: 'cut off', cause: 'THROTTLED after 400 records' });
    expect(lines[3]).toMatchObject({ level: 'warn', msg: 'a library warning 7' });
    expect(raw.join('')).not.toContain(KEY);
  });
});
