import { spawnSync } from 'node:child_process';

import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectLockConfigurationCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';
import { dispatchOutbox, platformDelivery } from '#lib/outbox/outbox-dispatcher';

import type * as auditModule from '../../functions/governance/audit';
import { startMoto } from '../../scripts/deploy-rehearsal';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

// The copy of each signed checkpoint in an S3 bucket with Object Lock (issue 44, item 3;
// serverless.yml's AuditCheckpointBucket), written through the outbox: against moto's S3.

const SCHEMA = 'it_audit_archive';
const BUCKET = 'audit-checkpoints-test';
const motoMissing = spawnSync('moto_server', ['--help'], { stdio: 'ignore' }).error !== undefined;
if (motoMissing) console.log('audit archive test skipped: moto_server (pip install "moto[server]") is not on PATH');

let moto: Awaited<ReturnType<typeof startMoto>> | undefined;
let s3: S3Client;
let audit: typeof auditModule;
const previous = { ...process.env };

beforeAll(async () => {
  if (motoMissing) return;
  moto = await startMoto();
  // What the function has deployed: its region and credentials; here moto's endpoint besides.
  Object.assign(process.env, { AWS_ENDPOINT_URL_S3: moto.endpoint, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' });
  s3 = new S3Client({
    endpoint: moto.endpoint,
    region: 'eu-west-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET, ObjectLockEnabledForBucket: true, CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' } }));
  await s3.send(
    new PutObjectLockConfigurationCommand({
      Bucket: BUCKET,
      ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 400 } } },
    }),
  );
  await useHandlersOn(SCHEMA, `computational-governance-platform.audit-chain.checkpoint-bucket = "${BUCKET}"`);
  audit = await import('../../functions/governance/audit');
});

afterAll(async () => {
  if (motoMissing) return;
  await releaseHandlers();
  process.env = previous;
  await moto?.stop();
});

describe('the checkpoints copied to an Object Lock bucket', () => {
  it.skipIf(motoMissing)('each checkpoint is written once to audit-checkpoints/<seq>-<signedAt>.json, locked in compliance mode', async () => {
    const auditor = { authorization: `Bearer ${await technicalToken({ sub: 'archive-auditor', roles: ['auditor'] })}` };
    // A first write for the chain (the refused one is recorded too), then its head signed.
    await invoke(audit.createAuditCheckpoint, { method: 'POST', path: '/v1/computational-governance/audit/checkpoints', headers: {} });
    const signed = await invoke(audit.createAuditCheckpoint, { method: 'POST', path: '/v1/computational-governance/audit/checkpoints', headers: auditor });
    expect(signed.status, JSON.stringify(signed.body)).toBe(201);

    // The call's own background delivery may have taken the message: it ends first, then what is left is delivered.
    await backgroundDispatchSettled();
    const { serviceFrame } = await import('#lib/http/composition');
    const { database, settings } = await serviceFrame();
    const counts = await dispatchOutbox(database, platformDelivery(settings));
    expect(counts.failed).toBe(0);

    const { Contents = [] } = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    const key = `audit-checkpoints/${String(signed.body.seq).padStart(12, '0')}-${signed.body.signedAt}.json`;
    expect(Contents.map((object) => object.Key)).toEqual([key]);
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(JSON.parse(await (object.Body?.transformToString() ?? Promise.resolve('')))).toEqual(signed.body);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ObjectLockMode).toBe('COMPLIANCE');
  });
});
