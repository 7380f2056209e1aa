import { createReadStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { DeleteObjectCommand, HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { deliveryFailed, type Finished } from './destinations';
import { pinnedLookup, type ResolvedAddress } from './targets';
import type { z } from 'zod';
import type { probeStepSchema } from '../vocabulary/delivery-run';

/**
 * S3-compatible object storage (AWS S3, MinIO, Cloudflare R2, …) through the AWS SDK v3: the file goes to
 * `<prefix>/dt=<the run's UTC day>/<file>` as a multipart upload streamed from the spool — an object appears under
 * its key only when the upload completes (a failed one is aborted, its parts removed) — then its manifest and JWS
 * beside it. Every connection goes to the address checked for this run (the SDK's agents answer every lookup with
 * it; TLS still verifies the host name). With an endpoint (not AWS) the bucket is in the path; on AWS, in the host.
 */

export interface S3Destination {
  bucket: string;
  region: string;
  /** An S3-compatible service's URL; none for AWS. */
  endpoint: string | null;
  prefix: string;
  accessKeyId: string;
}

export interface S3Target extends S3Destination {
  secretAccessKey: string;
  address: ResolvedAddress;
}

const PART_BYTES = 8 * 1024 * 1024;
const WAIT_MS = 120_000;

/** The host the SDK connects to for this destination: the endpoint's, or the bucket's on AWS. */
export const s3Host = (d: Pick<S3Destination, 'bucket' | 'region' | 'endpoint'>) =>
  d.endpoint ? new URL(d.endpoint).hostname : `${d.bucket}.s3.${d.region}.amazonaws.com`;

/** The key a run's file is placed under: the prefix, the run's UTC day as a partition, the file. */
export const s3Key = (prefix: string, startedMs: number, file: string): string =>
  underPrefix(prefix, `dt=${new Date(startedMs).toISOString().slice(0, 10)}/${file}`);

/** A key under the prefix (its slashes at either end ignored). */
function underPrefix(prefix: string, name: string): string {
  const folder = prefix.replace(/^\/+|\/+$/g, '');
  return `${folder ? `${folder}/` : ''}${name}`;
}

function clientFor(target: S3Target): { client: S3Client; close: () => void } {
  const lookup = pinnedLookup(target.address);
  const httpAgent = new http.Agent({ keepAlive: true, lookup });
  const httpsAgent = new https.Agent({ keepAlive: true, lookup });
  const client = new S3Client({
    region: target.region,
    ...(target.endpoint ? { endpoint: target.endpoint, forcePathStyle: true } : {}),
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
    // Checksums only where S3 requires them: S3-compatible services differ in the newer trailing-checksum uploads.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: new NodeHttpHandler({ httpAgent, httpsAgent, connectionTimeout: 10_000, requestTimeout: WAIT_MS }),
  });
  return {
    client,
    close: () => {
      client.destroy();
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

const said = (error: unknown) => {
  const e = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  return `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message ?? String(error)}${status ? ` (HTTP ${status})` : ''}`;
};

/** Uploads the file (multipart, streamed), then its manifest and JWS; answers the file's key. */
export async function toS3(target: S3Target, done: Finished, startedMs: number): Promise<string> {
  const { client, close } = clientFor(target);
  const key = s3Key(target.prefix, startedMs, done.file);
  const manifestKey = key.slice(0, key.length - done.file.length) + done.manifestName;
  try {
    const upload = new Upload({
      client,
      params: { Bucket: target.bucket, Key: key, Body: createReadStream(done.spool), ContentType: done.contentType },
      partSize: PART_BYTES,
      queueSize: 2,
      leavePartsOnError: false,
    });
    await upload.done();
    const beside: [string, Buffer | string, string][] = [
      ['json', done.signed.json, 'application/json'],
      ['jws', done.signed.jws, 'application/jose'],
    ];
    for (const [suffix, body, type] of beside)
      await client.send(
        new PutObjectCommand({ Bucket: target.bucket, Key: `${manifestKey}.manifest.${suffix}`, Body: body, ContentType: type }),
      );
    return key;
  } catch (error) {
    throw deliveryFailed(`The object storage did not take the file (${said(error)}).`);
  } finally {
    close();
  }
}

export type ProbeStep = z.infer<typeof probeStepSchema>;

/**
 * Tries the destination without delivering: the bucket answers with these credentials, and a small object can be
 * written under the prefix and removed again. Every step said, the first failure ending it.
 */
export async function probeS3(target: S3Target): Promise<ProbeStep[]> {
  const { client, close } = clientFor(target);
  const key = underPrefix(target.prefix, '.picks-portal-connection-test');
  const steps: ProbeStep[] = [];
  const attempt = async (step: string, work: () => Promise<unknown>, detail: string) => {
    try {
      await work();
      steps.push({ step, ok: true, detail });
      return true;
    } catch (error) {
      steps.push({ step, ok: false, detail: said(error) });
      return false;
    }
  };
  try {
    const tries: [string, () => Promise<unknown>, string][] = [
      ['bucket', () => client.send(new HeadBucketCommand({ Bucket: target.bucket })), `s3://${target.bucket} answers`],
      ['write', () => client.send(new PutObjectCommand({ Bucket: target.bucket, Key: key, Body: 'connection test' })), `wrote ${key}`],
      ['remove', () => client.send(new DeleteObjectCommand({ Bucket: target.bucket, Key: key })), `removed ${key}`],
    ];
    for (const [step, work, detail] of tries) if (!(await attempt(step, work, detail))) break;
    return steps;
  } finally {
    close();
  }
}
