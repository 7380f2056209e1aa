import { mkdir, lstat, open, realpath, rename, writeFile, copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors';

/**
 * Where a finished file goes. Each destination receives it complete or not at all: the file (spooled
 * locally and checked first) is written under a temporary name and renamed only after its last byte,
 * then its manifest beside it the same way. A folder here; SFTP in sftp.ts; a webhook in webhook.ts.
 */

export interface Finished {
  /** The spooled file, complete. */
  spool: string;
  /** The name placed: the file's own, or `<file>.pgp` when it is encrypted. */
  file: string;
  /** The clear file's name, whose manifest is placed beside it as `<manifestName>.manifest.json` and `.jws`. */
  manifestName: string;
  manifest: Record<string, unknown>;
  /** The manifest as canonical JSON and its JWS (lib/proof/signer.ts): placed beside the file, after it, in that order. */
  signed: { json: Buffer; jws: string };
  contentType: string;
}

export const deliveryFailed = (message: string) => new AppError({ code: 'DELIVERY_FAILED', message });

/** A folder under the root: relative, no `..`, no control characters. Null when it is fine, else the problem. */
export function folderProblem(folder: string): string | null {
  if (path.isAbsolute(folder) || folder.includes('\\')) return 'must be a relative folder under DELIVERY_ROOT';
  if (/[\u0000-\u001f]/.test(folder)) return 'must not hold control characters';
  if (folder.split('/').some((part) => part === '..')) return 'must stay under DELIVERY_ROOT (no "..")';
  return null;
}

const inside = (root: string, target: string) => target === root || target.startsWith(`${root}${path.sep}`);

/**
 * The folder under the root, made one level at a time: each part that exists is resolved (links
 * followed) and must still be inside the root before anything is made in it, so a link inside the root
 * that leads out of it never gets a folder created at its far end.
 */
async function folderUnder(realRoot: string, folder: string): Promise<string> {
  let current = realRoot;
  for (const part of folder.split('/').filter((p) => p !== '' && p !== '.')) {
    const next = path.join(current, part);
    const exists = await lstat(next).then(
      () => true,
      (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? false : Promise.reject(error)),
    );
    if (!exists)
      await mkdir(next, { mode: 0o750 }).catch((error: NodeJS.ErrnoException) =>
        error.code === 'EEXIST' ? undefined : Promise.reject(error),
      );
    const real = await realpath(next);
    if (!inside(realRoot, real)) throw deliveryFailed('The folder leads out of DELIVERY_ROOT through a link.');
    current = real;
  }
  return current;
}

export async function toDirectory(root: string, folder: string, done: Finished): Promise<string> {
  const problem = folderProblem(folder);
  if (problem) throw deliveryFailed(`The folder ${problem}.`);
  await mkdir(root, { recursive: true, mode: 0o750 });
  const realRoot = await realpath(root);
  const realTarget = await folderUnder(realRoot, folder);
  const final = path.join(realTarget, done.file);
  const part = path.join(realTarget, `.${done.file}.part`);
  try {
    await copyFile(done.spool, part);
    await syncFile(part);
    await rename(part, final);
    await writeAtomically(path.join(realTarget, `${done.manifestName}.manifest.json`), done.signed.json);
    await writeAtomically(path.join(realTarget, `${done.manifestName}.manifest.jws`), done.signed.jws);
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

async function writeAtomically(file: string, text: string | Buffer) {
  const part = path.join(path.dirname(file), `.${path.basename(file)}.part`);
  await writeFile(part, text, { mode: 0o640 });
  await syncFile(part);
  await rename(part, file);
}
