import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, chownSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { freePort } from './postgres';

/**
 * A real OpenSSH server (Debian's openssh-server) for SFTP tests: started on a free loopback port with a
 * host key and a client key made for the run, SFTP only, and stopped after. As root it signs in a
 * throwaway system user made for the purpose; otherwise the current user. Absent sshd: the tests say so
 * loudly and skip, except with CI set, where that is a failure (.ci/run installs it).
 */

const SSHD = '/usr/sbin/sshd';
const TEST_USER = 'picks-sftp-test';

export interface TestSshd {
  port: number;
  username: string;
  privateKey: string;
  /** The host key's fingerprint as OpenSSH prints it (SHA256:…). */
  fingerprint: string;
  /** Where the user's files land (its home). */
  home: string;
  /** Restarts with a new host key (a server replaced, or an attack). */
  rotateHostKey(): Promise<string>;
  stop(): void;
}

export function sshdMissing(what: string): string {
  const message = `${what}: skipped, OpenSSH's server is not installed here (apt-get install -y openssh-server)`;
  if (process.env.CI) throw new Error(`${message} — CI must run them (.ci/run installs it)`);
  console.warn(`\n!!! ${message}\n`);
  return message;
}

/**
 * With `password`, the user signs in with that password too (as root only: the throwaway user's password is set;
 * otherwise null, as when sshd is missing).
 */
export async function startSshd(options: { password?: string } = {}): Promise<TestSshd | null> {
  if (!existsSync(SSHD)) return null;
  if (options.password && process.getuid?.() !== 0) return null;
  const dir = mkdtempSync(path.join(tmpdir(), 'sshd-'));
  chmodSync(dir, 0o755);
  const root = process.getuid?.() === 0;
  // A user of its own for passwords: a key-only server started meanwhile resets its user's password.
  const user = options.password ? `${TEST_USER}-pw` : TEST_USER;
  const username = root ? user : userInfo().username;
  const home = path.join(dir, 'home');
  mkdirSync(home);
  if (root) {
    try {
      execFileSync('id', [user], { stdio: 'ignore' });
    } catch {
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', user]);
    }
    // '*': no password, but not a locked account ('!'), which sshd without PAM refuses even with a key.
    execFileSync('usermod', ['-p', '*', user]);
    if (options.password) execFileSync('chpasswd', { input: `${user}:${options.password}\n` });
    const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
    const gid = Number(execFileSync('id', ['-g', user]).toString().trim());
    chownSync(home, uid, gid);
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  }
  const key = (name: string) => {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', path.join(dir, name)]);
    return path.join(dir, name);
  };
  const client = key('client');
  writeFileSync(path.join(dir, 'authorized_keys'), readFileSync(`${client}.pub`), { mode: 0o644 });
  const port = await freePort();
  let hostKey = key('host1');
  let child: ChildProcess | null = null;
  let rounds = 1;

  const config = () =>
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
      'StrictModes no',
      `PasswordAuthentication ${options.password ? 'yes' : 'no'}`,
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      `AllowUsers ${username}`,
      'Subsystem sftp internal-sftp',
      `ForceCommand internal-sftp -d ${home}`,
      'LogLevel ERROR',
    ].join('\n');

  const start = async () => {
    writeFileSync(path.join(dir, 'sshd_config'), `${config()}\n`);
    child = spawn(SSHD, ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    for (let i = 0; i < 100; i += 1) {
      if (child.exitCode !== null) throw new Error(`sshd exited: ${errors}`);
      const up = await new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => (socket.end(), resolve(true)));
        socket.on('error', () => resolve(false));
      });
      if (up) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`sshd did not listen on ${port}: ${errors}`);
  };
  const stopChild = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    running.kill('SIGTERM');
    await new Promise((resolve) => running.once('exit', resolve));
  };
  const fingerprintOf = (file: string) =>
    execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`])
      .toString()
      .split(' ')[1]!;

  await start();
  return {
    port,
    username,
    privateKey: readFileSync(client, 'utf8'),
    fingerprint: fingerprintOf(hostKey),
    home,
    async rotateHostKey() {
      await stopChild();
      rounds += 1;
      hostKey = key(`host${rounds}`);
      await start();
      return fingerprintOf(hostKey);
    },
    stop() {
      void stopChild().finally(() => rmSync(dir, { recursive: true, force: true }));
    },
  };
}
