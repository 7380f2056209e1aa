import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * A real PostgreSQL for tests, from Debian's package: a throwaway cluster (initdb) started with pg_ctl on
 * a free loopback port, as the `postgres` user when running as root, and removed when stopped.
 */

export interface TestPostgres {
  /** The server's admin URL (database `postgres`). */
  url: string;
  port: number;
  /** A new, empty database on this server; its URL. */
  createDatabase(name?: string): Promise<string>;
  stop(): void;
  start(): void;
  /** Freezes every process of the server (SIGSTOP): connections stay open and nothing answers. */
  freeze(): void;
  /** Lets a frozen server go on (SIGCONT). */
  thaw(): void;
  /** Stops the server and removes its files. */
  destroy(): void;
}

export function findPostgresBin(): string | null {
  if (process.env.PG_BIN && existsSync(path.join(process.env.PG_BIN, 'initdb'))) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((version) => existsSync(path.join(root, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startPostgres(): Promise<TestPostgres | null> {
  const bin = findPostgresBin();
  if (!bin) return null;
  const dir = mkdtempSync(path.join(tmpdir(), 'picks-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args]] : [path.join(bin, command), args];
    const result = spawnSync(file, argv, { encoding: 'utf8', cwd: dir });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let counter = 0;
  // The postmaster (postmaster.pid's first line) and every process it started: the whole server, only this one.
  const processes = () => {
    const main = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = spawnSync('pgrep', ['-P', String(main)], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean)
      .map(Number);
    return [main, ...children];
  };
  const signalAll = (signal: NodeJS.Signals) => processes().forEach((pid) => process.kill(pid, signal));
  return {
    url,
    port,
    start,
    stop,
    freeze: () => signalAll('SIGSTOP'),
    thaw: () => signalAll('SIGCONT'),
    async createDatabase(name = `test_${process.pid}_${Date.now().toString(36)}_${(counter += 1)}`) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    destroy() {
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Where no PostgreSQL can be started, say so loudly; on CI that is a failure, never a skip. */
export function postgresMissing(what: string): string {
  const message = `PostgreSQL is not installed here (no initdb under /usr/lib/postgresql or PG_BIN): ${what} were SKIPPED. Install it with \`apt-get install -y postgresql\`.`;
  if (process.env.CI) throw new Error(`${message} CI must not skip them.`);
  return message;
}

/**
 * The one check that a test has its PostgreSQL: when `server` could not be started the test is skipped through
 * `skip` (Playwright's `test.skip`; by default it fails, as a contract test must), saying why loudly; on CI it fails.
 */
export function needPostgres(
  server: TestPostgres | null | undefined,
  what: string,
  skip: (reason: string) => void = (reason) => {
    throw new Error(reason);
  },
): void {
  if (!server) skip(postgresMissing(what));
}
