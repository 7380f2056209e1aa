import 'server-only';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeAttestation, verifyFile, type Jwk } from '@/public/verify-picks-file.mjs';
import { invalidFields } from '../errors';
import { fromStore } from '../store';
import { publishedKeys } from './signer';

/**
 * POST /api/proof/check (admins; /admin/proofs): a file and its JWS (and, optionally, the manifest), checked by
 * the very verifier recipients run (public/verify-picks-file.mjs) against the keys the portal publishes. It
 * trusts the portal's own key set, as a recipient holding a copy of it would; the offline verifier is for
 * those who must not trust the portal. The file is read into a temporary folder and removed after.
 */

const asText = async (value: FormDataEntryValue | null) => (value === null ? '' : typeof value === 'string' ? value : await value.text());

export async function checkFileResponse(request: Request): Promise<Response> {
  const form = await request.formData().catch(() => null);
  const file = form?.get('file');
  const jws = (await asText(form?.get('jws') ?? null)).trim();
  const manifest = form?.get('manifest') ?? null;
  const problems: Record<string, string> = {};
  if (!(file instanceof File) || file.size === 0) problems.file = 'is required: the delivered file (CSV or JSON)';
  if (!jws) problems.jws = 'is required: the manifest’s signature (<file>.manifest.jws), as a file or pasted';
  if (Object.keys(problems).length) throw invalidFields('check', problems, 'INVALID_CHECK');
  const dir = await mkdtemp(path.join(tmpdir(), 'picks-check-'));
  try {
    // The name matters only for telling CSV from JSON; anything else in it is dropped.
    const name = path.basename((file as File).name).replace(/[^\w.-]/g, '_') || 'file.csv';
    const target = path.join(dir, name);
    await writeFile(target, Buffer.from(await (file as File).arrayBuffer()));
    await writeFile(path.join(dir, 'given.jws'), jws);
    const manifestText = await asText(manifest);
    if (manifestText) await writeFile(path.join(dir, 'given.manifest.json'), manifestText);
    const keys = (await fromStore((db) => publishedKeys(db))).keys as Jwk[];
    const result = await verifyFile({
      file: target,
      jws: path.join(dir, 'given.jws'),
      manifest: manifestText ? path.join(dir, 'given.manifest.json') : undefined,
      keys,
    });
    return Response.json(
      { ok: result.checks.every((c) => c.ok), checks: result.checks, attestation: describeAttestation(result.attestation) },
      { headers: { 'Cache-Control': 'private, no-store' } },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
