import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import type { GovernanceContext, GovernanceHooks } from '#lib/governance/context';
import { policyInput } from '#lib/governance/policies/entity';
import type { EntityRow } from '#lib/governance/policies/entity-repository';
import { createEntity, deleteEntity, publishEntity } from '#lib/governance/policies/entity-service';
import type { JobQueue } from '#lib/queue/job-queue';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import { testSettings } from '../support/database';

// The entity service is wired, not pulled: it runs on the context it is given (a pool, settings,
// a queue and hooks of this test's own, no process global), and what other areas do on a change
// runs through the hooks, in the transaction of the change.

const SCHEMA = 'it_governance_hooks';
let database: Database;
let base: Omit<GovernanceContext, 'hooks'>;
const NO_HOOKS: GovernanceHooks = { statusChanged: [], published: [], deleted: [], reportEnded: [] };

/** A remote policy of the type, as the API takes it. */
const policy = (name: string) =>
  policyInput.parse({ name, resourceType: 'dataproduct', severity: 'error', engine: 'remote', remoteEngineUrl: 'http://127.0.0.1:9/check' });

/** A context whose only hook, of `kind`, fails with `message`. */
const withFailing = (kind: 'statusChanged' | 'deleted', message: string): GovernanceContext => ({
  ...base,
  hooks: {
    ...NO_HOOKS,
    [kind]: [
      async () => {
        throw new Error(message);
      },
    ],
  },
});

const statusOf = async (id: string) =>
  (await database.sql.unsafe(`select status from "${SCHEMA}".governance_entities where id = $1 order by version desc limit 1`, [id]))[0]?.status;

beforeAll(async () => {
  const settings = await testSettings(
    SCHEMA,
    'computational-governance-platform.resource-types = [ { name = "dataproduct", resolver-configuration { url = "http://127.0.0.1:9", path = "/r" } } ]',
  );
  const { openDatabase } = await import('#lib/db/client');
  database = openDatabase(settings);
  await database.sql.unsafe(`drop schema if exists "${SCHEMA}" cascade`);
  await runStartupTasks(settings);
  const queue: JobQueue = { redelivers: true, send: async (ids) => [...ids] };
  base = { database, settings, queue: async () => queue };
});

afterAll(async () => {
  await database.close();
});

describe('the hooks of the entity service', () => {
  it('runs the published hooks in the transaction of the publish, and what they start once it committed', async () => {
    const seen: string[] = [];
    let committedStatus: unknown;
    const ctx: GovernanceContext = {
      ...base,
      hooks: {
        ...NO_HOOKS,
        statusChanged: [async (_ctx, _tx, entity: EntityRow) => void seen.push(`status ${entity.status}`)],
        published: [
          async (_ctx, _tx, entity, { subject }) => {
            seen.push(`published v${entity.version} by ${subject}`);
            return {
              reportId: '00000000-0000-0000-0000-000000000001',
              afterCommit: async () => {
                committedStatus = await statusOf(entity.id);
                seen.push('after commit');
              },
            };
          },
        ],
      },
    };
    const created = await createEntity(ctx, 'policy', policy('hooked'), 'alice');
    const published = await publishEntity(ctx, 'policy', created.id, 'alice');
    expect(seen).toEqual(['status enabled', 'published v1 by alice', 'after commit']);
    // The started work saw the publish committed, and its report is the answer's.
    expect(committedStatus).toBe('enabled');
    expect(published.evaluationReportId).toBe('00000000-0000-0000-0000-000000000001');
  });

  it('rolls the publish back when a hook fails: nothing is enabled that its areas did not follow', async () => {
    const ctx = withFailing('statusChanged', 'the schedule could not follow');
    const created = await createEntity(ctx, 'policy', policy('unfollowed'), 'alice');
    await expect(publishEntity(ctx, 'policy', created.id, 'alice')).rejects.toThrow('the schedule could not follow');
    expect(await statusOf(created.id)).toBe('draft');
  });

  it('runs the deleted hooks in the transaction of the deletion', async () => {
    const forgotten: string[] = [];
    const ctx: GovernanceContext = { ...base, hooks: { ...NO_HOOKS, deleted: [async (_ctx, _tx, id) => void forgotten.push(id)] } };
    const created = await createEntity(ctx, 'policy', policy('deleted'), 'alice');
    await deleteEntity(ctx, 'policy', created.id);
    expect(forgotten).toEqual([created.id]);
    expect(await statusOf(created.id)).toBeUndefined();

    const failing = withFailing('deleted', 'its exceptions could not be forgotten');
    const kept = await createEntity(failing, 'policy', policy('kept'), 'alice');
    await expect(deleteEntity(failing, 'policy', kept.id)).rejects.toThrow('its exceptions could not be forgotten');
    expect(await statusOf(kept.id)).toBe('draft');
  });
});
