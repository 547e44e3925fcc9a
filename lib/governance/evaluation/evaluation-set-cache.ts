import { eq } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { InvalidInput } from '#lib/errors/domain-errors';

import type { GovernanceContext } from '../context';
import { requireKnownEnvironment } from '../environments/environment-service';
import { EntityRepository, type EntityRow } from '../policies/entity-repository';
import { ResourceTypeRepository, type ResourceTypeRow } from '../resource-types/resource-type-repository';

/** What Evaluate reads before it judges a descriptor: its type, and the active deployment-time entities of the type and environment. Shared: never changed. */
export interface EvaluationSet {
  readonly type: ResourceTypeRow;
  readonly entities: EntityRow[];
}

/** What this process keeps of a schema: the sets read at one generation of its governance tables. */
interface Kept {
  readonly generation: number;
  readonly sets: Map<string, EvaluationSet>;
}

const kept = new Map<string, Kept>();

/** The generation of the governance tables: one more with every change of them, seen when the change is (migration 0029). */
export async function generationOf(database: Database): Promise<number> {
  const t = database.tables.governanceGeneration;
  const [row] = await database.db.select({ value: t.value }).from(t).where(eq(t.id, 1));
  // Without the row nothing is kept: NaN equals no generation.
  return row?.value ?? Number.NaN;
}

export async function requireType(ctx: GovernanceContext, name: string): Promise<ResourceTypeRow> {
  const type = await new ResourceTypeRepository(ctx.database).find(name);
  if (!type) throw new InvalidInput([{ path: 'resourceType', message: `no resource type is named "${name}"` }]);
  return type;
}

/**
 * The evaluation set of a type and environment, kept per process (or Lambda container) and checked
 * on every use with one read of the generation of the governance tables: a set is used only at
 * the generation it was read at or later, so a call never judges with a policy older than what
 * was committed when it began (a publish that answered is seen by every call after it). An
 * unknown type or environment is refused (400) and nothing is kept.
 */
export async function evaluationSetOf(ctx: GovernanceContext, typeName: string, environment: string): Promise<EvaluationSet> {
  return (await readEvaluationSet(ctx, typeName, environment, await generationOf(ctx.database))).set;
}

/**
 * The set this process keeps for a type and environment, read at the generation it answers, without
 * reading the generation: a caller that judges with it must read the generation before its work
 * commits, and use its work only if the generation is still the one answered (the deploy gate,
 * evaluation-service.ts). The generation only grows, so the same value then means the same
 * policies were in force when the call began. Read now, as evaluationSetOf reads it, when nothing is kept.
 */
export async function keptEvaluationSet(ctx: GovernanceContext, typeName: string, environment: string): Promise<{ set: EvaluationSet; generation: number }> {
  const schema = kept.get(ctx.database.schemaName);
  const known = schema?.sets.get(keyOf(typeName, environment));
  if (schema && known) return { set: known, generation: schema.generation };
  return readEvaluationSet(ctx, typeName, environment, await generationOf(ctx.database));
}

const keyOf = (typeName: string, environment: string) => JSON.stringify([typeName, environment]);

async function readEvaluationSet(ctx: GovernanceContext, typeName: string, environment: string, generation: number) {
  const { database } = ctx;
  let schema = kept.get(database.schemaName);
  if (schema?.generation !== generation) {
    schema = { generation, sets: new Map() };
    kept.set(database.schemaName, schema);
  }
  const key = keyOf(typeName, environment);
  const known = schema.sets.get(key);
  if (known) return { set: known, generation };
  // Read after the generation: at least as new as it.
  const type = await requireType(ctx, typeName);
  await requireKnownEnvironment(ctx, environment, 'environment');
  const set = { type, entities: await new EntityRepository(database).active(type.name, environment, 'active', 'deployment') };
  schema.sets.set(key, set);
  return { set, generation };
}
