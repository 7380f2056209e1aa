// The portal's one logger factory (pino): a JSON object per line, or readable lines for a terminal
// (LOG_FORMAT=pretty). Plain JavaScript because scripts/portal-server.mjs, which runs without a TypeScript
// loader, makes the process's logger before Next starts; the app reaches the same one (lib/log/index.ts).
// Besides LOG_LEVEL and LOG_FORMAT it reads the environment for one reason: every secret value in it is
// cut out of every line written, whatever put it there (an error's message, a stack, a library's own line).
// Why the server makes it and takes over console: docs/adr/0010.
import { hostname } from 'node:os';
import { format } from 'node:util';
import pino from 'pino';
import pretty from 'pino-pretty';

const SECRET_NAME = /(^|_)(KEY|SECRET|TOKEN|PASSWORD|PASS)(_|$)/;
export const REDACTED = '[redacted]';

/** The secret values of an environment, longest first: variables named …KEY, …SECRET, …TOKEN, …PASSWORD, and URL passwords. */
export function secretsOf(env) {
  const found = new Set();
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== 'string' || value.length < 8 || name.endsWith('_FILE')) continue;
    if (SECRET_NAME.test(name)) {
      found.add(value);
      found.add(Buffer.from(value).toString('base64').replace(/=+$/, ''));
    }
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/]*:[^/]*@/i.test(value)) {
      try {
        const password = decodeURIComponent(new URL(value).password);
        if (password.length >= 4) found.add(password);
      } catch {
        // not a URL after all
      }
    }
  }
  return [...found].sort((a, b) => b.length - a.length);
}

/** Every occurrence of every secret replaced; JSON-escaped forms too, since a secret can sit inside a quoted string. */
export function scrubber(secrets) {
  const forms = [...new Set(secrets.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]))];
  if (forms.length === 0) return (line) => line;
  return (line) => {
    let out = line;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out;
  };
}

// Fields that may never be written, at any depth pino's paths reach: credentials and whole addresses of webhooks.
const REDACT = [
  'password',
  'secret',
  'cookie',
  'authorization',
  'apiKey',
  'webhookUrl',
  '*.password',
  '*.secret',
  '*.cookie',
  '*.authorization',
  '*.apiKey',
  '*.webhookUrl',
  'headers.cookie',
  'headers.authorization',
];

/**
 * The logger of a process. `fd`: 1 for the server (stdout, as a service manager expects), 2 for commands whose
 * standard output is their product (`npm run export`). `destination` (tests) replaces the file descriptor.
 */
export function createPortalLogger({ env = process.env, fd = 1, destination } = {}) {
  // A wrong LOG_LEVEL is named by the configuration's check (lib/config); the logger must still work to say so.
  const level = env.LOG_LEVEL in pino.levels.values || env.LOG_LEVEL === 'silent' ? env.LOG_LEVEL : 'info';
  const scrub = scrubber(secretsOf(env));
  const options = {
    level,
    base: { instance: `${hostname()}:${process.pid}` },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACT, censor: REDACTED },
    serializers: { err: pino.stdSerializers.errWithCause },
    hooks: { streamWrite: scrub },
  };
  // Unset: readable lines on a terminal, JSON lines anywhere else (a service manager, a pipe, a file).
  const readable = env.LOG_FORMAT ? env.LOG_FORMAT === 'pretty' : Boolean((fd === 2 ? process.stderr : process.stdout).isTTY);
  const out =
    destination ??
    (readable
      ? pretty({
          destination: fd,
          sync: true,
          colorize: Boolean((fd === 2 ? process.stderr : process.stdout).isTTY),
          translateTime: 'SYS:HH:MM:ss.l',
          // A line per event on a terminal: its fields after the message, an error's stack below it.
          singleLine: true,
          ignore: 'pid,hostname,instance,component',
          messageFormat: '{if component}[{component}] {end}{msg}',
        })
      : pino.destination({ dest: fd, sync: true }));
  return pino(options, out);
}

// Next prints its own marks before a message (" ⨯ Error", " ✓ Ready", " ⚠ …").
const MARKS = /^[\s⨯✓⚠○▲●›]+/u;
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * console.* of this process written through the logger, one JSON line each: Next's own errors (a stack becomes
 * the `err` field of one line), libraries' warnings, and the portal's `[component] message` lines. `context`
 * adds the fields of the request being served (its id). `special` may take a line first (return true).
 */
export function captureConsole(logger, { context = () => undefined, special = () => false } = {}) {
  const write =
    (level) =>
    (...args) => {
      const err = args.find((arg) => arg instanceof Error);
      const rest = args.filter((arg) => arg !== err);
      // Colours (Next prints some) are for terminals; a JSON line carries the text alone.
      let msg = (rest.length > 0 ? format(...rest) : '').replace(ANSI, '').replace(MARKS, '');
      const fields = { ...context() };
      const component = /^\[([\w-]+)\]\s*/.exec(msg);
      if (component) {
        fields.component = component[1];
        msg = msg.slice(component[0].length);
      }
      if (err && special(err, fields)) return;
      if (err) fields.err = err;
      msg = msg.replace(/[:\s]+$/, '');
      logger[level](fields, msg || err?.message || '');
    };
  console.log = write('info');
  console.info = write('info');
  console.warn = write('warn');
  console.error = write('error');
  console.debug = write('debug');
  // Node's process warnings (a dependency's notice, a deprecation) are printed through console.error by Node's own
  // listener: taken here instead, as one warn line naming the warning, never as an error.
  process.removeAllListeners('warning');
  process.on('warning', (warning) =>
    logger.warn({ ...context(), component: 'node', warning: warning.name }, warning.message.replace(/\s+/g, ' ').trim()),
  );
}
