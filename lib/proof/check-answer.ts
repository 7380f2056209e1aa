import { z } from 'zod';

/**
 * POST /api/proof/check: what it takes (a multipart form) and what it answers (./check.ts builds it as this type;
 * the portal API's OpenAPI document is made from both). Each check as the recipients' verifier says it
 * (public/verify-picks-file.mjs), what it could not check in words, and the licence attestation in lines.
 */

export const checkFormSchema = z
  .strictObject({
    file: z.string().meta({
      description: 'The delivered file: CSV, JSON, JSON Lines or Parquet (by its name’s ending; CSV otherwise).',
      format: 'binary',
    }),
    jws: z.string().meta({ description: 'The manifest’s signature (<file>.manifest.jws), as a file or pasted; at most 1 MB.' }),
    manifest: z
      .string()
      .optional()
      .meta({ description: 'The manifest (<file>.manifest.json), to check it is exactly what was signed; at most 1 MB.' }),
  })
  .meta({ id: 'ProofCheckForm' });

export const checkReportSchema = z
  .strictObject({
    ok: z.boolean().meta({ description: 'Every check holds.' }),
    checks: z.array(
      z.strictObject({
        name: z
          .string()
          .meta({ description: 'signature, manifest, file, bytes, sha256, records, record ids; portal record: this portal made it.' }),
        ok: z.boolean(),
        detail: z.string(),
      }),
    ),
    notes: z
      .array(z.string())
      .meta({ description: 'What was not checked, and why (a Parquet file’s records; a file of entries has no record ids).' }),
    attestation: z.array(z.string()).meta({ description: 'The manifest’s licence attestation, in lines.' }),
  })
  .meta({ id: 'ProofCheckReport' });

export type CheckReport = z.infer<typeof checkReportSchema>;
