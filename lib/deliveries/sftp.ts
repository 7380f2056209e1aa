import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import SftpClient from 'ssh2-sftp-client';
import { deliveryFailed, type Finished } from './destinations';
import type { ResolvedAddress } from './targets';

/**
 * SFTP: one connection to the address checked for this run, the host key verified at the handshake
 * before any credential is sent (pinned on first use, by the store, so two first runs cannot pin two
 * keys), then the file under a temporary name renamed after its last byte, then its manifest.
 */

export interface SftpTarget {
  /** The name as entered: shown in messages. */
  host: string;
  /** Where to connect: the address checked for this run (lib/deliveries/targets.ts). */
  address: ResolvedAddress;
  port: number;
  username: string;
  password?: string;
  privateKey?: string;
  path: string;
  /** The server's host key fingerprint (SHA256:…), or null before the first handshake. */
  hostKey: string | null;
  /** Pins a key on first use; returns the key pinned after the attempt (this one, or one pinned first). */
  pin: (fingerprint: string) => Promise<string | null>;
}

export const fingerprint = (key: Buffer) => `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

/** Where and as whom to connect: the address checked for this run, once (no retries), within 15 s. */
export function connectionTo(target: Omit<SftpTarget, 'pin'>) {
  return {
    host: target.address.address,
    port: target.port,
    username: target.username,
    ...(target.password ? { password: target.password } : {}),
    ...(target.privateKey ? { privateKey: target.privateKey } : {}),
    readyTimeout: 15_000,
    retries: 0,
  };
}

/** Uploads under a temporary name, renames after the last byte, then the manifest and its JWS. */
export async function toSftp(target: SftpTarget, done: Finished): Promise<{ file: string; hostKey: string }> {
  const sftp = new SftpClient('picks-portal');
  let seen = '';
  let pinned = target.hostKey;
  try {
    await sftp.connect({
      ...connectionTo(target),
      // Called at the handshake, before authentication: a key that is not the pinned one gets no credential.
      hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
        seen = fingerprint(key);
        if (pinned !== null) return verify(pinned === seen);
        target.pin(seen).then(
          (now) => {
            pinned = now;
            verify(now === seen);
          },
          () => verify(false),
        );
      },
    } as Parameters<SftpClient['connect']>[0]);
  } catch (error) {
    if (pinned !== null && seen && seen !== pinned)
      throw deliveryFailed(
        `The SFTP server's host key changed: pinned ${pinned}, offered ${seen}. If the new key is genuine, give it as destination.hostKey, or ask an admin to re-pin ("Re-pin host key" on /deliveries), and run again.`,
      );
    throw deliveryFailed(
      `The SFTP server ${target.host} could not be reached or refused the sign-in (${(error as Error).message.replace(/^connect: /, '')}).`,
    );
  }
  const dir = target.path.replace(/\/+$/, '') || '.';
  const final = `${dir}/${done.file}`;
  const part = `${dir}/.${done.file}.part`;
  try {
    if (dir !== '.' && !(await sftp.exists(dir))) await sftp.mkdir(dir, true);
    await sftp.put(createReadStream(done.spool), part);
    await sftp.rename(part, final);
    for (const [suffix, bytes] of [
      ['manifest.json', done.signed.json],
      ['manifest.jws', Buffer.from(done.signed.jws)],
    ] as const) {
      await sftp.put(bytes, `${dir}/.${done.manifestName}.${suffix}.part`);
      await sftp.rename(`${dir}/.${done.manifestName}.${suffix}.part`, `${dir}/${done.manifestName}.${suffix}`);
    }
    return { file: final, hostKey: seen };
  } catch (error) {
    await sftp.delete(part, true).catch(() => undefined);
    throw deliveryFailed(`The SFTP upload failed (${(error as Error).message}).`);
  } finally {
    await sftp.end().catch(() => undefined);
  }
}
