import type { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

import { tracedAwsClient } from '#lib/observability/tracing';
import { runtimeEnvironment } from '#lib/settings/environment';

let client: Promise<{ client: S3Client; PutObjectCommand: typeof PutObjectCommand }> | undefined;

/**
 * The outbox topic `archive`: `payload.body` written as JSON to `payload.key` of the bucket
 * (audit-chain.checkpoint-bucket: S3 with Object Lock, serverless.yml's AuditCheckpointBucket), with
 * the function's own credentials. Written again after a failure, the same object gets a version
 * more; a locked one is never replaced. The SDK's client is loaded by the first write.
 */
export async function putArchiveObject(bucket: string, payload: Record<string, unknown>): Promise<void> {
  client ??= import('@aws-sdk/client-s3').then((sdk) => ({
    PutObjectCommand: sdk.PutObjectCommand,
    // An emulator (tests, the rehearsal) through AWS_ENDPOINT_URL_S3, which the SDK reads, addressed by path.
    client: tracedAwsClient(new sdk.S3Client({ maxAttempts: 3, forcePathStyle: runtimeEnvironment().awsEndpointOverridden })),
  }));
  const { client: s3, PutObjectCommand: Put } = await client;
  // Object Lock asks for a checksum of every object written.
  await s3.send(
    new Put({ Bucket: bucket, Key: String(payload.key), Body: JSON.stringify(payload.body), ContentType: 'application/json', ChecksumAlgorithm: 'SHA256' }),
  );
}
