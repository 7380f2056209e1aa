import { createHash, createHmac } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, open, realpath, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import SftpClient from 'ssh2-sftp-client';
import { AppError } from '../errors';

/**
 * Where a finished file goes. Each destination receives it complete or not at all: the file (spooled
 * locally and checked first) is written under a temporary name and renamed only after its last byte,
 * then its manifest beside it the same way. A webhook receives it in one signed POST.
 */

export interface Finished {
  /** The spooled file, complete. */
  spool: string;
  file: string;
  manifest: Record<string, unknown>;
  contentType: string;
}

const deliveryFailed = (message: string) => new AppError({ code: 'DELIVERY_FAILED', message });

/** A folder under the root: relative, no `..`, no control characters. Null when it is fine, else the problem. */
export function folderProblem(folder: string): string | null {
  if (path.isAbsolute(folder) || folder.includes('\\')) return 'must be a relative folder under DELIVERY_ROOT';
  if (/[\u0000-\u001f]/.test(folder)) return 'must not hold control characters';
  if (folder.split('/').some((part) => part === '..')) return 'must stay under DELIVERY_ROOT (no "..")';
  return null;
}

const inside = (root: string, target: string) => target === root || target.startsWith(`${root}${path.sep}`);

export async function toDirectory(root: string, folder: string, done: Finished): Promise<string> {
  const problem = folderProblem(folder);
  if (problem) throw deliveryFailed(`The folder ${problem}.`);
  await mkdir(root, { recursive: true, mode: 0o750 });
  const realRoot = await realpath(root);
  const target = path.resolve(realRoot, folder);
  if (!inside(realRoot, target)) throw deliveryFailed('The folder leaves DELIVERY_ROOT.');
  await mkdir(target, { recursive: true, mode: 0o750 });
  // A symbolic link inside the root must not lead out of it either.
  const realTarget = await realpath(target);
  if (!inside(realRoot, realTarget)) throw deliveryFailed('The folder leads out of DELIVERY_ROOT through a link.');
  const final = path.join(realTarget, done.file);
  const part = path.join(realTarget, `.${done.file}.part`);
  try {
    await copyFile(done.spool, part);
    await syncFile(part);
    await rename(part, final);
    await writeAtomically(path.join(realTarget, `${done.file}.manifest.json`), `${JSON.stringify(done.manifest, null, 2)}\n`);
  } catch (error) {
    await rm(part, { force: true });
    throw deliveryFailed(`Writing to the folder failed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
  }
  return path.relative(realRoot, final);
}

async function syncFile(file: string) {
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeAtomically(file: string, text: string) {
  const part = path.join(path.dirname(file), `.${path.basename(file)}.part`);
  await writeFile(part, text, { mode: 0o640 });
  await syncFile(part);
  await rename(part, file);
}

export interface SftpTarget {
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: string;
  path: string;
  /** The server's host key fingerprint pinned on first use (SHA256:…), or null before the first connection. */
  hostKey: string | null;
}

export const fingerprint = (key: Buffer) => `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

/** Uploads under a temporary name, renames after the last byte, then the manifest. Returns the host key seen. */
export async function toSftp(target: SftpTarget, done: Finished): Promise<{ file: string; hostKey: string }> {
  const sftp = new SftpClient('picks-portal');
  let seen = '';
  try {
    await sftp.connect({
      host: target.host,
      port: target.port,
      username: target.username,
      ...(target.password ? { password: target.password } : {}),
      ...(target.privateKey ? { privateKey: target.privateKey } : {}),
      readyTimeout: 15_000,
      retries: 0,
      hostVerifier: (key: Buffer) => {
        seen = fingerprint(key);
        return target.hostKey === null || target.hostKey === seen;
      },
    });
  } catch (error) {
    if (target.hostKey !== null && seen && seen !== target.hostKey)
      throw deliveryFailed(
        `The SFTP server's host key changed: pinned ${target.hostKey}, offered ${seen}. If the new key is genuine, clear the pin ("Re-pin host key" on /deliveries, or PATCH {"repinHostKey": true}) and run again.`,
      );
    throw deliveryFailed(
      `The SFTP server could not be reached or refused the sign-in (${(error as Error).message.replace(/^connect: /, '')}).`,
    );
  }
  const dir = target.path.replace(/\/+$/, '') || '.';
  const final = `${dir}/${done.file}`;
  const part = `${dir}/.${done.file}.part`;
  try {
    if (dir !== '.' && !(await sftp.exists(dir))) await sftp.mkdir(dir, true);
    await sftp.put(createReadStream(done.spool), part);
    await sftp.rename(part, final);
    const manifest = `${dir}/${done.file}.manifest.json`;
    await sftp.put(Buffer.from(`${JSON.stringify(done.manifest, null, 2)}\n`), `${dir}/.${done.file}.manifest.json.part`);
    await sftp.rename(`${dir}/.${done.file}.manifest.json.part`, manifest);
    return { file: final, hostKey: seen };
  } catch (error) {
    await sftp.delete(part, true).catch(() => undefined);
    throw deliveryFailed(`The SFTP upload failed (${(error as Error).message}).`);
  } finally {
    await sftp.end().catch(() => undefined);
  }
}

export interface WebhookTarget {
  url: string;
  secret: string;
  deliveryId: string;
}

/** The signature a receiver checks: HMAC-SHA256 over `<timestamp>.<body>` with the shared secret, hex. */
export async function signatureOf(secret: string, timestamp: string, spool: string): Promise<string> {
  const hmac = createHmac('sha256', secret).update(`${timestamp}.`);
  for await (const chunk of createReadStream(spool)) hmac.update(chunk as Buffer);
  return hmac.digest('hex');
}

/** One signed POST of the whole file, retried with backoff (1 s, 4 s, 16 s) on network faults, 429 and 5xx. */
export async function toWebhook(target: WebhookTarget, done: Finished, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))) {
  let last = '';
  for (let attempt = 0; attempt < 4; attempt += 1) {
    if (attempt > 0) await sleep(1000 * 4 ** (attempt - 1));
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = await signatureOf(target.secret, timestamp, done.spool);
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        redirect: 'error',
        signal: AbortSignal.timeout(120_000),
        duplex: 'half',
        body: Readable.toWeb(createReadStream(done.spool)) as ReadableStream,
        headers: {
          'Content-Type': done.contentType,
          'User-Agent': 'picks-partner-portal',
          'X-Picks-Delivery': target.deliveryId,
          'X-Picks-File': done.file,
          'X-Picks-Timestamp': timestamp,
          'X-Picks-Signature': `v1=${signature}`,
          'X-Picks-Manifest': Buffer.from(JSON.stringify(done.manifest)).toString('base64url'),
        },
      } as RequestInit);
      await res.body?.cancel().catch(() => undefined);
      if (res.ok) return;
      last = `HTTP ${res.status}`;
      if (res.status < 500 && res.status !== 429) break; // refused: asking again changes nothing
    } catch (error) {
      last = (error as Error).cause ? String(((error as Error).cause as Error).message) : (error as Error).message;
    }
  }
  throw deliveryFailed(`The webhook did not accept the file (${last}).`);
}
