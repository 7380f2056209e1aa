import 'server-only';
import SftpClient from 'ssh2-sftp-client';
import { Agent, fetch as undiciFetch } from 'undici';
import type { ProbeStep } from './s3';
import { connectionTo, fingerprint, type SftpTarget } from './sftp';
import { pinnedLookup, type ResolvedAddress } from './targets';

/**
 * "Test connection" for an SFTP server and a webhook receiver, as a run would reach them and without delivering
 * anything: the SFTP server's host key checked against the pinned one (none pinned yet: said, not pinned — the
 * first run pins it), the sign-in with the stored password or key, and the remote folder; the receiver's URL
 * answering a HEAD request (any answer means it is reachable; only POST is ever sent a file). Each step said in
 * plain words, the first failure ending the test.
 */

const WAIT_MS = 15_000;

export async function probeSftp(target: Omit<SftpTarget, 'pin'>): Promise<ProbeStep[]> {
  const sftp = new SftpClient('picks-portal-test');
  let seen = '';
  const steps: ProbeStep[] = [];
  try {
    await sftp.connect({
      ...connectionTo(target),
      // Before any credential is sent: a key that is not the pinned one gets none (as in a run).
      hostVerifier: (key: Buffer) => {
        seen = fingerprint(key);
        return target.hostKey === null || target.hostKey === seen;
      },
    } as Parameters<SftpClient['connect']>[0]);
  } catch (error) {
    const message = (error as Error).message;
    if (!seen) {
      steps.push({
        step: 'connection',
        ok: false,
        detail: `could not connect to ${target.host}:${target.port}: no SSH server answered in time`,
      });
      return steps;
    }
    steps.push(hostKeyStep(target.hostKey, seen));
    if (target.hostKey !== null && target.hostKey !== seen) return steps;
    steps.push({
      step: 'sign-in',
      ok: false,
      detail: /authentication/i.test(message)
        ? `${target.username} was refused: check the password or private key`
        : `the server closed the connection at sign-in (${message.replace(/^connect: /, '')})`,
    });
    return steps;
  }
  try {
    steps.push(hostKeyStep(target.hostKey, seen));
    steps.push({ step: 'sign-in', ok: true, detail: `signed in as ${target.username}` });
    const dir = target.path.replace(/\/+$/, '') || '.';
    const kind = await sftp.exists(dir);
    steps.push(
      kind === 'd'
        ? { step: 'folder', ok: true, detail: `the folder ${dir} is there` }
        : kind === false
          ? { step: 'folder', ok: true, detail: `the folder ${dir} is not there yet: the first run makes it` }
          : { step: 'folder', ok: false, detail: `${dir} is a file, not a folder` },
    );
    return steps;
  } finally {
    await sftp.end().catch(() => undefined);
  }
}

function hostKeyStep(pinned: string | null, seen: string): ProbeStep {
  if (pinned === null) return { step: 'host key', ok: true, detail: `the server offered ${seen}; the first run pins it` };
  return pinned === seen
    ? { step: 'host key', ok: true, detail: `the server's key is the pinned one (${seen})` }
    : { step: 'host key', ok: false, detail: `the server's key changed: pinned ${pinned}, offered ${seen}; no credential was sent` };
}

export async function probeWebhook(url: string, address: ResolvedAddress): Promise<ProbeStep[]> {
  const dispatcher = new Agent({ connect: { lookup: pinnedLookup(address), timeout: WAIT_MS } });
  try {
    const res = await undiciFetch(url, {
      method: 'HEAD',
      dispatcher,
      redirect: 'manual',
      signal: AbortSignal.timeout(WAIT_MS),
      headers: { 'User-Agent': 'picks-partner-portal' },
    });
    return [
      {
        step: 'receiver',
        ok: true,
        detail: `${new URL(url).host} answered (HTTP ${res.status} to a HEAD request; files are sent by POST)`,
      },
    ];
  } catch {
    return [{ step: 'receiver', ok: false, detail: `could not reach ${new URL(url).host}: nothing answered in time` }];
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}
