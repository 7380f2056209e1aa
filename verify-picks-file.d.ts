// Types of the standalone verifier (public/verify-picks-file.mjs: plain JavaScript, so that a recipient needs Node alone).
declare module '@/public/verify-picks-file.mjs' {
  export interface Jwk {
    kid?: string;
    kty?: string;
    crv?: string;
    x?: string;
    retiredAt?: string;
    compromisedAt?: string;
    [name: string]: unknown;
  }
  export interface Check {
    name: string;
    ok: boolean;
    detail: string;
  }
  export function readKeys(where: string): Promise<Jwk[]>;
  export const MANIFEST_TYPE: 'picks-manifest+json';
  export function checkJws(
    jws: string,
    keys: Jwk[],
    typ?: string,
  ): { payload: Buffer; header: Record<string, unknown>; signedAt: string | null; retiredAt: string | null };
  export function idsDigest(ids: string[]): { count: number; sha256: string };
  export function verifyFile(options: {
    file: string;
    manifest?: string;
    jws?: string;
    keys: Jwk[];
  }): Promise<{ checks: Check[]; attestation: Record<string, unknown> | null; manifest?: Record<string, unknown>; notes?: string[] }>;
  export function describeAttestation(attestation: Record<string, unknown> | null): string[];
}

// Types of the standalone check of saved events (public/verify-picks-events.mjs).
declare module '@/public/verify-picks-events.mjs' {
  export const RECEIPT_TYPE: string;
  export function canonical(value: unknown): string;
  export function eventHash(event: Record<string, unknown>): string;
  export function readEvents(file: string): Promise<Record<string, unknown>[]>;
  export function verifyEvents(
    events: Record<string, unknown>[],
    receiptJws: string,
    keys: import('@/public/verify-picks-file.mjs').Jwk[],
  ): { checks: { name: string; ok: boolean; detail: string }[]; statement: Record<string, unknown> | null };
}

// Types of its readers, served beside it (public/picks-file-readers.mjs).
declare module '@/public/picks-file-readers.mjs' {
  export function readCsv(file: string, needIds?: boolean): Promise<{ bytes: number; sha256: string; records: number; ids: string[] }>;
  export function readJson(file: string): Promise<{ bytes: number; sha256: string; records: number; ids: string[] }>;
  export function readJsonLines(file: string): Promise<{ bytes: number; sha256: string; records: number; ids: string[] }>;
  export function readBytes(file: string): Promise<{ bytes: number; sha256: string; records: undefined; ids: undefined }>;
}
