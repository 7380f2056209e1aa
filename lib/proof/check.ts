import 'server-only';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import busboy from 'busboy';
import type { Check, Jwk } from '@/public/verify-picks-file.mjs';
import { AppError, invalidFields } from '../errors';
import { processSlot } from '../process-state';
import { fromStore } from '../store';
import { madeHere } from './made-here';
import { publishedKeys } from './signer';
import type { CheckReport } from './check-answer';

/**
 * POST /api/proof/check (admins; /admin/proofs): a file and its JWS (and, optionally, the manifest), checked by
 * the very verifier recipients run (public/verify-picks-file.mjs) against the keys the portal publishes, and against
 * the portal's own record of the export or delivery run it names (./made-here.ts). It
 * trusts the portal's own key set, as a recipient holding a copy of it would; the offline verifier is for
 * those who must not trust the portal. The upload streams to a temporary folder (never held in memory), the
 * check runs on a worker thread so that the instance keeps answering, one check at a time per instance (a
 * second is refused with 429), and the folder is removed after.
 */

const SMALL_PART_BYTES = 1024 * 1024; // a JWS or a manifest
const CHECK_TIMEOUT_MS = 5 * 60_000;
const VERIFIER = path.join(process.cwd(), 'public', 'verify-picks-file.mjs');
const checking = () => processSlot<{ busy: boolean }>('proofCheck').once(() => ({ busy: false }));

export async function checkFileResponse(request: Request): Promise<Response> {
  const state = checking();
  if (state.busy)
    throw new AppError({
      code: 'CHECK_BUSY',
      message: 'Another file is being checked on this instance. Try again when it has ended.',
      retryAfterSeconds: 10,
    });
  state.busy = true;
  const dir = await mkdtemp(path.join(tmpdir(), 'picks-check-'));
  try {
    const form = await receiveForm(request, dir);
    const problems: Record<string, string> = {};
    if (!form.file) problems.file = 'is required: the delivered file (CSV or JSON)';
    if (!form.jws) problems.jws = 'is required: the manifest’s signature (<file>.manifest.jws), as a file or pasted';
    if (Object.keys(problems).length) throw invalidFields('check', problems, 'INVALID_CHECK');
    await writeFile(path.join(dir, 'given.jws'), form.jws);
    if (form.manifest) await writeFile(path.join(dir, 'given.manifest.json'), form.manifest);
    const keys = (await fromStore((db) => publishedKeys(db))).keys as Jwk[];
    const result = await verifyInWorker({
      file: form.file!,
      jws: path.join(dir, 'given.jws'),
      manifest: form.manifest ? path.join(dir, 'given.manifest.json') : undefined,
      keys,
    });
    // Beyond the recipients' checks: that this portal made it (its sealed audit entry), whatever its signing time.
    const checks = [...result.checks, await fromStore((db) => madeHere(db, form.jws))];
    const report: CheckReport = {
      ok: checks.every((c) => c.ok),
      checks,
      notes: result.notes,
      attestation: result.attestation,
    };
    return Response.json(report, { headers: { 'Cache-Control': 'private, no-store' } });
  } finally {
    state.busy = false;
    await rm(dir, { recursive: true, force: true });
  }
}

interface Received {
  /** Where the file was written (its name kept only to tell CSV from JSON). */
  file: string | null;
  jws: string;
  manifest: string;
}

/** The multipart form, its file streamed to `dir` as it arrives, the JWS and manifest (files or text) up to 1 MB each. */
async function receiveForm(request: Request, dir: string): Promise<Received> {
  const refuse = (message: string) => invalidFields('check', { form: message }, 'INVALID_CHECK');
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': request.headers.get('content-type') ?? '' },
      limits: { files: 3, fields: 3, fieldSize: SMALL_PART_BYTES, parts: 6 },
    });
  } catch {
    throw refuse('must be sent as multipart/form-data with the fields file, jws and optionally manifest');
  }
  if (!request.body) throw refuse('is empty: send the file and its JWS');
  const received: Received = { file: null, jws: '', manifest: '' };
  const writes: Promise<void>[] = [];
  parser.on('field', (name, value) => {
    if (name === 'jws') received.jws = value.trim();
    if (name === 'manifest') received.manifest = value;
  });
  parser.on('file', (name, stream, info) => {
    if (name === 'file' && !received.file) {
      // Only the kind is taken from the name: a name such as `..` or `a/b` reaches no other place.
      const target = path.join(dir, `upload.${/\.(jsonl|json|parquet)$/i.exec(info.filename ?? '')?.[1]?.toLowerCase() ?? 'csv'}`);
      writes.push(
        pipeline(stream, createWriteStream(target, { flags: 'wx', mode: 0o600 })).then(async () => {
          if ((await stat(target)).size > 0) received.file = target;
        }),
      );
    } else if (name === 'jws' || name === 'manifest') {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= SMALL_PART_BYTES) chunks.push(chunk);
      });
      writes.push(
        new Promise<void>((resolve, reject) => {
          stream.on('error', reject);
          stream.on('end', () => {
            if (size > SMALL_PART_BYTES) return reject(refuse(`${name} is larger than 1 MB: it is not a JWS or manifest`));
            const text = Buffer.concat(chunks).toString('utf8');
            if (name === 'jws') received.jws = text.trim();
            else received.manifest = text;
            resolve();
          });
        }),
      );
    } else stream.resume(); // a part the check does not take
  });
  try {
    await pipeline(Readable.fromWeb(request.body as import('node:stream/web').ReadableStream<Uint8Array>), parser);
    await Promise.all(writes);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw refuse(`could not be read to its end (${(error as Error).message})`);
  }
  return received;
}

/** The verifier on a worker thread: reading and hashing a large file never holds up this instance's requests. */
function verifyInWorker(options: { file: string; jws: string; manifest?: string; keys: Jwk[] }) {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.verifier)
      .then(async (v) => {
        const result = await v.verifyFile(workerData.options);
        parentPort.postMessage({ checks: result.checks, notes: result.notes ?? [], attestation: v.describeAttestation(result.attestation) });
      })
      .catch((error) => parentPort.postMessage({ error: error.message }));
  `;
  return new Promise<{ checks: Check[]; notes: string[]; attestation: string[] }>((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { verifier: pathToFileURL(VERIFIER).href, options } });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(
        new AppError({
          code: 'INVALID_CHECK',
          message: `The check did not end within ${CHECK_TIMEOUT_MS / 60_000} minutes: use the offline verifier.`,
        }),
      );
    }, CHECK_TIMEOUT_MS);
    worker.once('message', (message: { checks: Check[]; notes: string[]; attestation: string[] } | { error: string }) => {
      clearTimeout(timer);
      void worker.terminate();
      if ('error' in message) reject(new Error(`the verifier failed: ${message.error}`));
      else resolve(message);
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
