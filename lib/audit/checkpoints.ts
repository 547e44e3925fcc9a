import { asc, desc, gt } from 'drizzle-orm';

import { lazilyPer } from '#lib/cache/lazy';
import type { Database, ServiceContext } from '#lib/db/client';
import { inTransaction } from '#lib/db/transaction';
import { Unavailable } from '#lib/errors/domain-errors';
import { logger } from '#lib/logging/logger';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { runtimeEnvironment } from '#lib/settings/environment';
import type { Settings } from '#lib/settings/index';
import { localSecret } from '#lib/settings/local-secret';

import { linkBeforeReading } from './audit-chainer';
import { type Checkpoint, keyIdOf, publicKeyPem, signCheckpoint, signingKeyOf } from './checkpoint-signature';

type Row = Database['tables']['auditCheckpoints']['$inferSelect'];

export const checkpointOf = (row: Row): Checkpoint => ({
  seq: row.seq,
  hash: row.hash,
  signedAt: row.signedAt.toISOString(),
  keyId: row.keyId,
  signature: row.signature,
});

/**
 * The key that signs checkpoints: `audit-chain.signing-key` (AUDIT_SIGNING_KEY, or by name in SSM),
 * never in the database. Deployed it is required (a checkpoint is refused, 503, without it); locally
 * a generated seed is kept in .data/audit-signing.key with a warning.
 */
export const signingKeyFor = lazilyPer(async (settings: Settings) => {
  const configured = settings.auditChain.signingKey;
  if (configured) return signingKeyOf(Buffer.from(configured, 'base64'));
  if (runtimeEnvironment().deployed) {
    throw new Unavailable(
      'The audit chain cannot be signed: set computational-governance-platform.audit-chain.signing-key (AUDIT_SIGNING_KEY or AUDIT_SIGNING_KEY_SSM) ' +
        'to 32 random bytes in base64 (openssl rand -base64 32)',
    );
  }
  const seed = await localSecret('audit-signing.key', (file) =>
    logger.warn(
      { file },
      'audit-chain.signing-key is not set: generated a key for local development. Set AUDIT_SIGNING_KEY for any shared or deployed environment.',
    ),
  );
  return signingKeyOf(seed);
});

/** The public key that verifies this service's checkpoints, and its id. */
export async function checkpointKey(settings: Settings): Promise<{ publicKey: string; keyId: string }> {
  const { publicKey } = await signingKeyFor(settings);
  return { publicKey: publicKeyPem(publicKey), keyId: keyIdOf(publicKey) };
}

/**
 * Signs the chain's head now: stored in audit_checkpoints and, through the outbox in the same
 * transaction, copied outside this database: to the platform's audit receiver (`audit.enabled`) and
 * to the Object Lock bucket (`audit-chain.checkpoint-bucket`), as audit-checkpoints/<seq>-<signedAt>.json.
 * Undefined when the chain is empty. Unless `always`, only when the head moved since the newest checkpoint.
 * What waits to be linked is linked first.
 */
export async function takeCheckpoint({ database, settings }: ServiceContext, always: boolean): Promise<Checkpoint | undefined> {
  const key = await signingKeyFor(settings);
  await linkBeforeReading(database);
  const records = database.tables.auditRecords;
  const checkpoints = database.tables.auditCheckpoints;
  const [head] = await database.db.select({ seq: records.seq, hash: records.hash }).from(records).orderBy(desc(records.seq)).limit(1);
  if (!head) return undefined;
  const [newest] = await database.db.select().from(checkpoints).orderBy(desc(checkpoints.id)).limit(1);
  if (!always && newest?.seq === head.seq && newest.hash === head.hash) return undefined;
  const checkpoint = signCheckpoint(head, new Date(), key);
  await inTransaction(database, 'audit checkpoint', async (tx) => {
    await tx.insert(checkpoints).values({ ...checkpoint, signedAt: new Date(checkpoint.signedAt) });
    const outbox = new OutboxRepository(database);
    if (settings.platformServices.audit.enabled) await outbox.enqueue('audit', { type: 'audit-checkpoint', ...checkpoint }, tx);
    const key = `audit-checkpoints/${String(checkpoint.seq).padStart(12, '0')}-${checkpoint.signedAt}.json`;
    if (settings.auditChain.checkpointBucket) await outbox.enqueue('archive', { key, body: checkpoint }, tx);
  });
  return checkpoint;
}

/** The scheduled checkpoint: when the newest is older than `audit-chain.checkpoint-interval` (or there is none) and the chain grew. */
export async function checkpointWhenDue(ctx: ServiceContext): Promise<Checkpoint | undefined> {
  const checkpoints = ctx.database.tables.auditCheckpoints;
  const [newest] = await ctx.database.db.select({ signedAt: checkpoints.signedAt }).from(checkpoints).orderBy(desc(checkpoints.id)).limit(1);
  if (newest && Date.now() - newest.signedAt.getTime() < ctx.settings.auditChain.checkpointInterval) return undefined;
  return takeCheckpoint(ctx, false);
}

/** Checkpoints in the order they were signed, after the one with id `after`, at most `limit`; and where the next page starts. */
export async function listCheckpoints({ database }: ServiceContext, after: number, limit: number): Promise<{ checkpoints: Checkpoint[]; next: number | null }> {
  const t = database.tables.auditCheckpoints;
  const rows = await database.db
    .select()
    .from(t)
    .where(gt(t.id, after))
    .orderBy(asc(t.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return { checkpoints: page.map(checkpointOf), next: rows.length > limit ? page[page.length - 1].id : null };
}
